//! A position: board, hands, side to move, alliance, castling rights, ply (R32).

use super::bitboard::Bitboard;
use super::cell::{Cell, GARDEN};
use super::error::PositionError;
use super::options::Options;
use super::piece::{Kind, Piece, KIND_COUNT};
use super::player::{Alliance, Player, PlayerSet};
use super::tables::{self, DIR_TO, LINES, RAYS, REV_STEPS, SLIDES};
use super::zobrist;
use std::fmt;
use std::fmt::Write as _;

/// The start position (R10, R32).
pub const START: &str = "Ll1Pl1Pf1Lf/SlBlPl2PfRfSf/Gl1Pl3Pf1Gf/Kl1Pl4Pf1Kf/Gl1Nl5Nf1Gf/Sl1Pl6Pf1Sf/LlRlPl7PfBfLf/1Pl8Pf1/Pl9Pf/10/PmPmPmPmNmPmPmPmPm/1Bm4Rm1/LmSmGmKmGmSmLm f - - fml 1";

pub(crate) const EMPTY: u8 = u8::MAX;

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// One player won.
    Win(Player, WinReason),
    /// Drawn among these living players: by repetition (R31) or by
    /// agreement (R36).
    Draw(PlayerSet, DrawReason),
}

/// Why a game was drawn.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DrawReason {
    /// R31: a position occurred for the fourth time.
    Repetition,
    /// R36: every living player agreed.
    Agreement,
}

impl DrawReason {
    /// Stable machine-readable name.
    pub const fn code(self) -> &'static str {
        match self {
            DrawReason::Repetition => "repetition",
            DrawReason::Agreement => "agreement",
        }
    }
}

/// `win <player> <reason>`, `draw <players>` (by repetition) or `draw <players>
/// agreement`, e.g. `win f garden`, `draw fl`, `draw fml agreement`: the outcome
/// as text, for storing beside a position string (which has no field for it).
impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Win(p, r) => write!(f, "win {} {}", p.letter(), r.code()),
            Outcome::Draw(set, DrawReason::Repetition) => write!(f, "draw {}", set.letters()),
            Outcome::Draw(set, DrawReason::Agreement) => {
                write!(f, "draw {} agreement", set.letters())
            }
        }
    }
}

impl Outcome {
    /// The outcome its [`Display`](std::fmt::Display) wrote.
    pub fn parse(s: &str) -> Option<Outcome> {
        let mut words = s.split(' ');
        let outcome = match (words.next()?, words.next()?) {
            ("win", p) => {
                let mut c = p.chars();
                let player = Player::from_letter(c.next()?)?;
                if c.next().is_some() {
                    return None;
                }
                Outcome::Win(player, WinReason::parse(words.next()?)?)
            }
            ("draw", letters) => {
                let mut set = PlayerSet::EMPTY;
                for c in letters.chars() {
                    let p = Player::from_letter(c)?;
                    if set.contains(p) {
                        return None;
                    }
                    set.insert(p);
                }
                if set.len() < 2 {
                    return None;
                }
                let reason = match words.next() {
                    None => DrawReason::Repetition,
                    Some("agreement") => DrawReason::Agreement,
                    Some(_) => return None,
                };
                Outcome::Draw(set, reason)
            }
            _ => return None,
        };
        words.next().is_none().then_some(outcome)
    }
}

/// Why a player won.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WinReason {
    /// R26: its king reached the Pleasure Garden while not allied.
    Garden,
    /// R28: the other two were eliminated.
    LastPlayerStanding,
    /// R28: one of the allies against it was eliminated.
    AllyEliminated,
}

impl WinReason {
    pub const ALL: [WinReason; 3] = [
        WinReason::Garden,
        WinReason::LastPlayerStanding,
        WinReason::AllyEliminated,
    ];

    /// The reason named by [`WinReason::code`].
    pub fn parse(code: &str) -> Option<WinReason> {
        WinReason::ALL.into_iter().find(|r| r.code() == code)
    }

    /// Stable machine-readable name.
    pub const fn code(self) -> &'static str {
        match self {
            WinReason::Garden => "garden",
            WinReason::LastPlayerStanding => "last_player_standing",
            WinReason::AllyEliminated => "ally_eliminated",
        }
    }
}

/// A position of sannin shogi, with the game's rule options.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) by_kind: [u128; KIND_COUNT],
    pub(crate) by_player: [u128; 3],
    pub(crate) board: [u8; 127],
    pub(crate) hands: [[u8; 7]; 3],
    pub(crate) to_move: Option<Player>,
    pub(crate) alliance: Option<Alliance>,
    pub(crate) castling: PlayerSet,
    pub(crate) ply: u32,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) options: Options,
    /// The Zobrist key of the pieces on the board and in hand (see
    /// `zobrist`), kept up to date as the rules play.
    pub(crate) placement: u64,
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// The start position with default options.
    pub fn start() -> Position {
        Position::parse(START).expect("the start position parses")
    }

    /// The start position with two players allied from the outset (R11, R32): the third
    /// moves first, its king starts promoted and nobody may castle.
    pub fn start_allied(alliance: Alliance, options: Options) -> Position {
        let mut pos = Position::start().with_options(options);
        pos.alliance = Some(alliance);
        pos.castling = PlayerSet::EMPTY;
        let third = alliance.third();
        pos.promote_king(third);
        pos.to_move = Some(third);
        pos
    }

    /// This position with `p` to move instead, as if the players between had
    /// passed: for searches that skip a player (best-reply search). Not a
    /// move: no rule is applied, and a finished game, or an eliminated `p`,
    /// stays as it is.
    pub fn with_turn(mut self, p: Player) -> Position {
        if self.outcome.is_none() && self.is_alive(p) {
            self.to_move = Some(p);
        }
        self
    }

    /// This position with other rule options.
    pub fn with_options(mut self, options: Options) -> Position {
        self.options = options;
        self
    }

    /// The rule options in force.
    pub fn options(&self) -> Options {
        self.options
    }

    /// The piece on a cell.
    #[inline]
    pub fn piece_at(&self, c: Cell) -> Option<Piece> {
        let code = self.board[c.index()];
        (code != EMPTY).then(|| Piece::from_code(code))
    }

    /// The player to move, or `None` when the game is over.
    pub fn to_move(&self) -> Option<Player> {
        self.to_move
    }

    /// The alliance, if one exists.
    pub fn alliance(&self) -> Option<Alliance> {
        self.alliance
    }

    /// Players that may still castle (R21).
    pub fn castling(&self) -> PlayerSet {
        self.castling
    }

    /// The number of the next move.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// How the game ended, if it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.to_move.is_none()
    }

    /// How many pieces of an (unpromoted) kind a player holds in hand.
    pub fn hand_count(&self, p: Player, kind: Kind) -> u8 {
        if kind.is_king() {
            return 0;
        }
        self.hands[p.index()][kind.hand_index()]
    }

    /// Cells holding a player's pieces.
    pub fn pieces_of(&self, p: Player) -> Bitboard {
        Bitboard(self.by_player[p.index()])
    }

    /// Cells holding pieces of a kind (any owner).
    pub fn pieces_of_kind(&self, k: Kind) -> Bitboard {
        Bitboard(self.by_kind[k.index()])
    }

    /// All occupied cells.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        Bitboard(self.occ())
    }

    #[inline]
    pub(crate) fn occ(&self) -> u128 {
        self.by_player[0] | self.by_player[1] | self.by_player[2]
    }

    #[inline]
    pub(crate) fn kings(&self) -> u128 {
        self.by_kind[Kind::King.index()] | self.by_kind[Kind::PKing.index()]
    }

    /// The cell of a player's king; `None` once it is eliminated.
    #[inline]
    pub fn king(&self, p: Player) -> Option<Cell> {
        Bitboard(self.kings() & self.by_player[p.index()]).first()
    }

    /// Whether a player is still in the game (has a king, R32).
    #[inline]
    pub fn is_alive(&self, p: Player) -> bool {
        self.kings() & self.by_player[p.index()] != 0
    }

    /// The players still in the game.
    pub fn living(&self) -> PlayerSet {
        let mut s = PlayerSet::EMPTY;
        for p in Player::ALL {
            if self.is_alive(p) {
                s.insert(p);
            }
        }
        s
    }

    /// The next living player after `p` in turn order.
    pub(crate) fn next_living_after(&self, p: Player) -> Option<Player> {
        let a = p.next();
        let b = a.next();
        [a, b, p].into_iter().find(|q| self.is_alive(*q))
    }

    // ---- board edits (no rules) ----

    #[inline]
    pub(crate) fn put(&mut self, c: Cell, piece: Piece) {
        let bit = 1u128 << c.index();
        self.by_kind[piece.kind.index()] |= bit;
        self.by_player[piece.owner.index()] |= bit;
        self.board[c.index()] = piece.code();
    }

    #[inline]
    pub(crate) fn take(&mut self, c: Cell) -> Option<Piece> {
        let code = self.board[c.index()];
        if code == EMPTY {
            return None;
        }
        let piece = Piece::from_code(code);
        let bit = !(1u128 << c.index());
        self.by_kind[piece.kind.index()] &= bit;
        self.by_player[piece.owner.index()] &= bit;
        self.board[c.index()] = EMPTY;
        Some(piece)
    }

    /// Removes every piece of `p`, on the board and in hand (R27).
    pub(crate) fn remove_player(&mut self, p: Player) {
        for c in Bitboard(self.by_player[p.index()]) {
            if let Some(piece) = self.take(c) {
                self.placement ^= zobrist::piece(piece, c.index());
            }
        }
        for (kind, n) in self.hands[p.index()].iter_mut().enumerate() {
            self.placement ^= zobrist::hand(p, kind, *n) ^ zobrist::hand(p, kind, 0);
            *n = 0;
        }
        self.castling.remove(p);
    }

    /// Promotes a player's king where it stands (R20), if not promoted yet.
    pub(crate) fn promote_king(&mut self, p: Player) {
        if let Some(k) = self.king(p) {
            if let Some(piece) = self.piece_at(k) {
                if piece.kind == Kind::King {
                    self.take(k);
                    let promoted = Piece {
                        kind: Kind::PKing,
                        owner: p,
                    };
                    self.placement ^=
                        zobrist::piece(piece, k.index()) ^ zobrist::piece(promoted, k.index());
                    self.put(
                        k,
                        Piece {
                            kind: Kind::PKing,
                            owner: p,
                        },
                    );
                }
            }
        }
    }

    // ---- attacks (R22) ----

    /// Cells of pieces of players in `by` that attack `sq`, over occupancy `occ`.
    pub(crate) fn attackers(&self, sq: Cell, occ: u128, by: PlayerSet) -> u128 {
        let s = sq.index();
        let k = &self.by_kind;
        let mut out = 0u128;
        for p in by.iter() {
            let mine = self.by_player[p.index()];
            let rev = &REV_STEPS[p.index()];
            out |=
                rev[tables::ORTHO][s] & (k[Kind::King.index()] | k[Kind::PBishop.index()]) & mine;
            out |= rev[tables::GOLD][s] & (k[Kind::Gold.index()] | k[Kind::PPawn.index()]) & mine;
            out |= rev[tables::SILVER][s]
                & (k[Kind::Silver.index()] | k[Kind::PSilver.index()])
                & mine;
            out |= rev[tables::KNIGHT][s] & k[Kind::Knight.index()] & mine;
            out |= rev[tables::PAWN][s] & k[Kind::Pawn.index()] & mine;
        }
        // Only rays holding some ranging piece of `by` need a blocker search.
        let mut mine = 0u128;
        for p in by.iter() {
            mine |= self.by_player[p.index()];
        }
        let sliders = mine
            & (k[Kind::Rook.index()]
                | k[Kind::Bishop.index()]
                | k[Kind::Lance.index()]
                | k[Kind::PKing.index()]
                | k[Kind::PRook.index()]
                | k[Kind::PBishop.index()]
                | k[Kind::PSilver.index()]
                | k[Kind::PLance.index()]);
        if sliders == 0 {
            return out;
        }
        // Each ranging piece on a line through `sq` attacks it if it ranges that way and
        // nothing stands between.
        let mut cand = sliders & LINES[s];
        while cand != 0 {
            let b = cand.trailing_zeros() as usize;
            cand &= cand - 1;
            let d = DIR_TO[b][s] as usize;
            let between = (RAYS[d][b] ^ RAYS[d][s]) & !(1u128 << s);
            if SLIDES[self.board[b] as usize] & (1 << d) != 0 && between & occ == 0 {
                out |= 1u128 << b;
            }
        }
        out
    }

    /// Whether a piece of a player in `by` attacks `sq` over `occ`.
    #[inline]
    pub(crate) fn is_attacked(&self, sq: Cell, occ: u128, by: PlayerSet) -> bool {
        self.attackers(sq, occ, by) != 0
    }

    /// Whether a living player is in check: its king is attacked by any other player,
    /// an ally included (R22).
    pub fn in_check(&self, p: Player) -> bool {
        match self.king(p) {
            Some(k) => self.is_attacked(k, self.occ(), others(p)),
            None => false,
        }
    }

    /// Cells of the pieces giving check to `p`.
    pub fn checkers(&self, p: Player) -> Bitboard {
        match self.king(p) {
            Some(k) => Bitboard(self.attackers(k, self.occ(), others(p))),
            None => Bitboard::EMPTY,
        }
    }

    /// The cells a piece standing on `from` attacks on this board.
    pub fn attacks_from(&self, from: Cell) -> Bitboard {
        match self.piece_at(from) {
            Some(piece) => Bitboard(tables::attacks(piece, from, self.occ())),
            None => Bitboard::EMPTY,
        }
    }

    /// The promotion zone of a mover (R17); `garden` adds 7g (every piece but the king).
    pub(crate) fn zone(&self, us: Player, garden: bool) -> u128 {
        let mut z = if garden { 1u128 << GARDEN.index() } else { 0 };
        for q in Player::ALL {
            if q != us
                && !self
                    .alliance
                    .is_some_and(|a| a.contains(q) && a.contains(us))
            {
                z |= tables::TERRITORY[q.index()].0;
            }
        }
        z
    }

    // ---- R32 ----

    /// Parses a position string (R32) with default options. Never panics.
    pub fn parse(s: &str) -> Result<Position, PositionError> {
        super::notation::parse_position(s).map(|mut pos| {
            pos.placement = pos.placement_from_scratch();
            pos
        })
    }

    /// An empty board with nothing set; the parser fills it.
    pub(crate) fn empty() -> Position {
        Position {
            by_kind: [0; KIND_COUNT],
            by_player: [0; 3],
            board: [EMPTY; 127],
            hands: [[0; 7]; 3],
            to_move: None,
            alliance: None,
            castling: PlayerSet::EMPTY,
            ply: 1,
            outcome: None,
            options: Options::default(),
            placement: 0,
        }
    }

    /// The board field of R32.
    pub fn board_field(&self) -> String {
        let mut out = String::with_capacity(100);
        let mut idx = 0;
        for r in 0..13 {
            if r > 0 {
                out.push('/');
            }
            let len = if r <= 6 { 7 + r } else { 19 - r };
            let mut empties = 0;
            for _ in 0..len {
                match self.piece_at(Cell::new_unchecked(idx)) {
                    None => empties += 1,
                    Some(p) => {
                        if empties > 0 {
                            let _ = write!(out, "{empties}");
                            empties = 0;
                        }
                        let _ = write!(out, "{p}");
                    }
                }
                idx += 1;
            }
            if empties > 0 {
                let _ = write!(out, "{empties}");
            }
        }
        out
    }

    /// The hands field of R32.
    pub fn hands_field(&self) -> String {
        let mut out = String::new();
        for p in Player::ALL {
            for k in Kind::HAND {
                let n = self.hand_count(p, k);
                if n > 1 {
                    let _ = write!(out, "{n}");
                }
                if n > 0 {
                    let _ = write!(out, "{}{}", k.letter(), p.letter());
                }
            }
        }
        if out.is_empty() {
            out.push('-');
        }
        out
    }
}

/// The players other than `p`.
#[inline]
pub(crate) fn others(p: Player) -> PlayerSet {
    PlayerSet(7 & !(1 << p.index()))
}

impl fmt::Display for Position {
    /// The canonical position string (R32).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let to_move = self.to_move.map_or('-', Player::letter);
        let alliance = self.alliance.map_or("-".to_string(), |a| a.to_string());
        write!(
            f,
            "{} {} {} {} {} {}",
            self.board_field(),
            to_move,
            self.hands_field(),
            alliance,
            self.castling.letters(),
            self.ply
        )
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

impl std::str::FromStr for Position {
    type Err = PositionError;
    fn from_str(s: &str) -> Result<Position, PositionError> {
        Position::parse(s)
    }
}

impl Position {
    /// The same position turned 120° about the Garden, each player's pieces becoming the
    /// next player's (First's become Middle's, Middle's Last's, Last's First's). Turn
    /// order, hands, alliance and castling rights follow the relabelling, so the rules
    /// treat the result exactly like the original.
    pub fn rotated(&self) -> Position {
        let mut out = *self;
        out.by_kind = [0; KIND_COUNT];
        out.by_player = [0; 3];
        out.board = [EMPTY; 127];
        for c in Cell::all() {
            if let Some(piece) = self.piece_at(c) {
                let (x, y) = (c.col() - 7, c.rank() - 6);
                let to = Cell::from_coords(y - x + 7, -x + 6).expect("rotation keeps the board");
                out.put(
                    to,
                    Piece {
                        kind: piece.kind,
                        owner: piece.owner.next(),
                    },
                );
            }
        }
        for p in Player::ALL {
            out.hands[p.next().index()] = self.hands[p.index()];
        }
        out.to_move = self.to_move.map(Player::next);
        out.alliance = self.alliance.map(|a| {
            let mut it = a.members().iter().map(Player::next);
            let (x, y) = (it.next().expect("two"), it.next().expect("two"));
            Alliance::new(x, y).expect("different")
        });
        out.castling = PlayerSet::EMPTY;
        for p in self.castling.iter() {
            out.castling.insert(p.next());
        }
        out.outcome = self.outcome.map(|o| match o {
            Outcome::Win(p, r) => Outcome::Win(p.next(), r),
            Outcome::Draw(s, r) => {
                let mut t = PlayerSet::EMPTY;
                for p in s.iter() {
                    t.insert(p.next());
                }
                Outcome::Draw(t, r)
            }
        });
        out.placement = out.placement_from_scratch();
        out
    }
}

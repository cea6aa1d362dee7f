//! Players, facing and alliances (R6, R7, R29).

use std::fmt;

/// One of the three players (R6). Turn order is First → Middle → Last.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Player {
    /// `f`, top right, moves first (R11).
    First = 0,
    /// `m`, at the bottom.
    Middle = 1,
    /// `l`, top left.
    Last = 2,
}

impl Player {
    /// The three players in turn order.
    pub const ALL: [Player; 3] = [Player::First, Player::Middle, Player::Last];

    /// 0, 1, 2 in turn order.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The player with this turn-order index (0–2).
    #[inline]
    pub const fn from_index(i: usize) -> Player {
        match i % 3 {
            0 => Player::First,
            1 => Player::Middle,
            _ => Player::Last,
        }
    }

    /// The next player in turn order, eliminated or not.
    #[inline]
    pub const fn next(self) -> Player {
        Player::from_index(self as usize + 1)
    }

    /// The letter used in notation: `f`, `m` or `l`.
    pub const fn letter(self) -> char {
        match self {
            Player::First => 'f',
            Player::Middle => 'm',
            Player::Last => 'l',
        }
    }

    /// Parses `f`, `m` or `l`.
    pub const fn from_letter(c: char) -> Option<Player> {
        match c {
            'f' => Some(Player::First),
            'm' => Some(Player::Middle),
            'l' => Some(Player::Last),
            _ => None,
        }
    }

    /// The lowercase seat name: `first`, `middle`, `last`.
    pub const fn name(self) -> &'static str {
        match self {
            Player::First => "first",
            Player::Middle => "middle",
            Player::Last => "last",
        }
    }

    /// Board hours added to an owner hour (R7): Middle 0, Last 4, First 8.
    #[inline]
    pub(crate) const fn hour_offset(self) -> i32 {
        match self {
            Player::First => 8,
            Player::Middle => 0,
            Player::Last => 4,
        }
    }

    /// The board direction this player's pieces face (R7): hour 12 for Middle, 4 for
    /// Last, 8 for First.
    pub const fn forward(self) -> super::cell::Dir {
        super::cell::Dir::hour(self.hour_offset())
    }

    /// This player's territory, the three rows nearest it (R8).
    pub fn territory(self) -> super::bitboard::Bitboard {
        super::tables::TERRITORY[self.index()]
    }

    /// This player's far edge (R9).
    pub fn far_edge(self) -> super::bitboard::Bitboard {
        super::tables::FAR_EDGE[self.index()]
    }

    pub(crate) const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of players as a bit mask (bit i = player with index i).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PlayerSet(pub(crate) u8);

impl PlayerSet {
    /// No player.
    pub const EMPTY: PlayerSet = PlayerSet(0);
    /// All three players.
    pub const ALL: PlayerSet = PlayerSet(7);

    /// Whether `p` is in the set.
    #[inline]
    pub const fn contains(self, p: Player) -> bool {
        self.0 & p.bit() != 0
    }

    /// Adds `p`.
    #[inline]
    pub fn insert(&mut self, p: Player) {
        self.0 |= p.bit();
    }

    /// Removes `p`.
    #[inline]
    pub fn remove(&mut self, p: Player) {
        self.0 &= !p.bit();
    }

    /// Number of players in the set.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Members in turn order.
    pub fn iter(self) -> impl Iterator<Item = Player> {
        Player::ALL.into_iter().filter(move |p| self.contains(*p))
    }

    /// Letters in turn order, e.g. `fl`; `-` when empty.
    pub fn letters(self) -> String {
        if self.is_empty() {
            "-".to_string()
        } else {
            self.iter().map(Player::letter).collect()
        }
    }
}

/// Two allied players (R29). Written `fm`, `fl` or `ml`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Alliance(PlayerSet);

impl Alliance {
    /// The alliance of two different players; `None` if `a == b`.
    pub fn new(a: Player, b: Player) -> Option<Alliance> {
        if a == b {
            return None;
        }
        Some(Alliance(PlayerSet(a.bit() | b.bit())))
    }

    /// The alliance of the two players other than `p`.
    pub fn against(p: Player) -> Alliance {
        Alliance(PlayerSet(7 & !p.bit()))
    }

    /// Whether `p` is one of the allies.
    #[inline]
    pub const fn contains(self, p: Player) -> bool {
        self.0.contains(p)
    }

    /// The non-allied player.
    pub fn third(self) -> Player {
        Player::from_index((7 & !self.0 .0).trailing_zeros() as usize)
    }

    /// The ally of `p`, if `p` is allied.
    pub fn ally_of(self, p: Player) -> Option<Player> {
        if self.contains(p) {
            Some(Player::from_index(
                (self.0 .0 & !p.bit()).trailing_zeros() as usize
            ))
        } else {
            None
        }
    }

    /// The two allies in turn order.
    pub fn members(self) -> PlayerSet {
        self.0
    }

    /// Parses `fm`, `fl` or `ml` (either order).
    pub fn parse(s: &str) -> Option<Alliance> {
        let mut it = s.chars();
        let a = Player::from_letter(it.next()?)?;
        let b = Player::from_letter(it.next()?)?;
        if it.next().is_some() {
            return None;
        }
        Alliance::new(a, b)
    }
}

impl fmt::Display for Alliance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.letters())
    }
}

//! What the API shows of a game. Names are part of the API contract.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::db::games::ProposalRow;
use crate::games::clock::TimeControl;
use crate::games::events::Effect;
use crate::games::listing::Listed;
use crate::routes::utc;
use crate::rules::{Cell, Kind, Player, Position};

use crate::games::model::{seat_name, GameState, History, Loaded, SeatState, Status};

/// A player's seat and standing.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlayerView {
    /// `first`, `middle` or `last`.
    #[schema(example = "first")]
    pub seat: String,
    /// The account in the seat; null for an open seat, and for every seat of
    /// an imported game.
    #[schema(example = "alice")]
    pub username: Option<String>,
    /// Whether the seat is a computer player's.
    pub bot: bool,
    /// In an imported game: the name its record gives the player. A label
    /// only, never an account: anyone can import a record naming anyone.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "Ōyama")]
    pub label: Option<String>,
    /// Before the start: `open`, `invited` or `joined`. Once it started: `playing`,
    /// `eliminated`, `won` or `drew`.
    #[schema(example = "playing")]
    pub state: String,
    /// How the player left the game, if it did.
    pub elimination: Option<EliminationView>,
    /// Whether the player's king is in check now.
    pub in_check: bool,
    /// When the player's vacation ends, while one stops their clock in this
    /// game. Shown to the game's players only.
    pub vacation_until: Option<DateTime<Utc>>,
    /// Once a rated game finished: the player's place and rating before and
    /// after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<crate::routes::ratings::RatingChangeView>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EliminationView {
    /// `checkmate`, `no_legal_move`, `resigned` or `timed_out`.
    #[schema(example = "checkmate")]
    pub reason: String,
    /// The mating player's seat, for checkmates.
    pub by: Option<String>,
    /// The number of the action (move, alliance, resignation or time-out) that caused it.
    pub seq: i32,
}

/// The end of a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResultView {
    /// The winning seat, or null for a draw.
    #[schema(example = "middle")]
    pub winner: Option<String>,
    /// The seats sharing a draw (R31).
    pub draw: Option<Vec<String>>,
    /// `garden`, `last_player_standing`, `ally_eliminated` or `repetition`.
    #[schema(example = "garden")]
    pub reason: String,
}

impl From<crate::games::events::GameResult> for ResultView {
    fn from(r: crate::games::events::GameResult) -> Self {
        Self {
            winner: r.winner,
            draw: r.draw,
            reason: r.reason,
        }
    }
}

/// One piece on the board.
#[derive(Debug, Serialize, ToSchema)]
pub struct PieceView {
    #[schema(example = "7k")]
    pub cell: String,
    /// The R32 token, e.g. `Pm`, `+Rf`.
    #[schema(example = "Pm")]
    pub piece: String,
    /// `king`, `rook`, `bishop`, `gold`, `silver`, `knight`, `lance`, `pawn`.
    #[schema(example = "pawn")]
    pub kind: String,
    pub promoted: bool,
    /// The owner's seat.
    #[schema(example = "middle")]
    pub owner: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MoveRef {
    #[schema(example = "7k7j")]
    pub r#move: String,
    #[schema(example = "middle")]
    pub seat: Option<String>,
    pub ply: i32,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AllianceView {
    /// The two allied seats.
    pub seats: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OptionsView {
    /// R19: `promote` (default) or `stay`.
    #[schema(example = "promote")]
    pub stuck_piece: String,
    /// R24: `selective` (default) or `all`.
    #[schema(example = "selective")]
    pub illumination: String,
}

/// A pending alliance proposal.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProposalView {
    pub id: String,
    #[schema(example = "first")]
    pub from: String,
    #[schema(example = "middle")]
    pub to: String,
    /// `pending`, `accepted`, `declined`, `withdrawn` or `lapsed`.
    #[schema(example = "pending")]
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub resolved_at: Option<DateTime<Utc>>,
}

impl From<ProposalRow> for ProposalView {
    fn from(p: ProposalRow) -> Self {
        ProposalView {
            id: p.id.into_string(),
            from: p.from_seat,
            to: p.to_seat,
            status: p.status.as_str().to_owned(),
            created_at: utc(p.created_at),
            resolved_at: p.resolved_at.map(utc),
        }
    }
}

/// The whole state of a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameView {
    #[schema(example = "0b4f6c8e-2f0a-4c1e-9d7b-5a3e2f1c0d9b")]
    pub id: String,
    /// `open`, `active`, `finished`, `cancelled`, `expired`, or `analysis` (imported,
    /// unfinished).
    #[schema(example = "active")]
    pub status: String,
    /// Always three, in turn order.
    pub players: Vec<PlayerView>,
    /// The seat to move, or null.
    #[schema(example = "middle")]
    pub to_move: Option<String>,
    /// The number of the next move (as in the position string).
    #[schema(example = 2)]
    pub ply: i32,
    /// The position string (R32).
    pub position: String,
    pub alliance: Option<AllianceView>,
    /// When the player to move runs out of time; null without a time control.
    pub deadline: Option<DateTime<Utc>>,
    pub result: Option<ResultView>,
    /// Your seat in this game, if you have one.
    pub your_seat: Option<String>,
    /// Whether it is your move.
    pub your_turn: bool,
    /// Your legal moves (R33), when it is your turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_moves: Option<Vec<String>>,
    pub last_move: Option<MoveRef>,
    /// Every piece on the board, in reading order (R3).
    pub board: Vec<PieceView>,
    /// Pieces in hand per seat: `{"first": {"P": 2}, …}`.
    pub hands: BTreeMap<String, BTreeMap<String, u8>>,
    /// Seats that may still castle (R21).
    pub castling: Vec<String>,
    /// Days per move: 1, 2, 3, 5, 7, 10 or 14; null for unlimited time.
    pub days_per_move: Option<i32>,
    pub time_control: TimeControl,
    /// Whether Saturdays and Sundays, in the time zone of the player to
    /// move, do not count.
    pub pause_on_weekends: bool,
    /// Whether players' vacations stop their clocks in this game.
    pub vacation: bool,
    /// Each seat's clock, in turn order; null without a limit or before the start.
    pub clocks: Option<Vec<ClockView>>,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    pub options: OptionsView,
    /// Seats that started allied (R11).
    pub allies: Option<Vec<String>>,
    /// Pending alliance proposals.
    pub alliance_proposals: Vec<ProposalView>,
    /// The draw offer standing (R36), or null.
    pub draw_offer: Option<DrawOfferView>,
    /// Number of actions taken (moves, alliances, resignations, time-outs).
    pub actions: i32,
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// When open seats and invitations lapse (open games only).
    pub expires_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
}

/// A seat's clock.
#[derive(Debug, Serialize, ToSchema)]
pub struct ClockView {
    #[schema(example = "first")]
    pub seat: String,
    /// What the clock held when it last changed: at `counting_from` for the
    /// clock that runs.
    #[schema(example = 259200)]
    pub remaining_seconds: i64,
    /// Whether this is the clock of the player to move (a computer
    /// player's never runs).
    pub running: bool,
    /// For the running clock: the instant it counts from (the start of the
    /// turn, or the end of the player's vacation, maybe still to come).
    pub counting_from: Option<DateTime<Utc>>,
    /// For the running clock: when it runs out, weekends off and vacation
    /// counted. The game's `deadline`.
    pub deadline: Option<DateTime<Utc>>,
}

fn clock_views(g: &Loaded, clocks: &crate::games::timing::Clocks) -> Vec<ClockView> {
    let active = g.status() == Status::Active;
    crate::rules::Player::ALL
        .into_iter()
        .map(|p| {
            let c = clocks.get(p);
            let running = active && c.since.is_some() && g.seat(p).bot_level.is_none();
            ClockView {
                seat: seat_name(p).to_owned(),
                remaining_seconds: c.remaining_ms / 1000,
                running,
                counting_from: c.since.filter(|_| running).map(utc),
                deadline: g.row.deadline.filter(|_| running).map(utc),
            }
        })
        .collect()
}

fn vacation_until(g: &Loaded, s: &crate::games::model::SeatInfo) -> Option<DateTime<Utc>> {
    s.vacation_until.filter(|_| g.row.vacation).map(utc)
}

/// A draw offer (R36): the game ends drawn when everyone in `awaiting` has
/// accepted; moving instead of answering declines it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DrawOfferView {
    /// The seat that offered.
    #[schema(example = "first")]
    pub by: String,
    /// The seats that accepted, the offerer among them.
    #[schema(example = json!(["first"]))]
    pub accepted: Vec<String>,
    /// The living seats yet to answer.
    #[schema(example = json!(["middle", "last"]))]
    pub awaiting: Vec<String>,
    /// The game's ply when it was offered.
    pub ply: u32,
    pub offered_at: DateTime<Utc>,
}

fn seats(s: crate::rules::PlayerSet) -> Vec<String> {
    s.iter().map(|p| seat_name(p).to_owned()).collect()
}

/// How each seat left the game.
fn eliminations(g: &Loaded) -> BTreeMap<String, EliminationView> {
    g.standing
        .eliminations
        .iter()
        .map(|e| {
            let view = EliminationView {
                reason: e.reason.clone(),
                by: e.by.clone(),
                seq: e.seq,
            };
            (e.seat.clone(), view)
        })
        .collect()
}

pub fn board(pos: &Position) -> Vec<PieceView> {
    Cell::all()
        .filter_map(|c| {
            pos.piece_at(c).map(|p| PieceView {
                cell: c.to_string(),
                piece: p.to_string(),
                kind: p.kind.unpromoted().name().to_owned(),
                promoted: p.kind.is_promoted(),
                owner: seat_name(p.owner).to_owned(),
            })
        })
        .collect()
}

pub fn hands(pos: &Position) -> BTreeMap<String, BTreeMap<String, u8>> {
    Player::ALL
        .into_iter()
        .map(|p| {
            let h = Kind::HAND
                .into_iter()
                .filter(|k| pos.hand_count(p, *k) > 0)
                .map(|k| (k.letter().to_string(), pos.hand_count(p, k)))
                .collect();
            (seat_name(p).to_owned(), h)
        })
        .collect()
}

/// The game as `viewer` sees it (legal moves only for the player to move).
pub fn game_view(state: &GameState, viewer: Option<&str>) -> GameView {
    let (g, proposals, ratings) = (&state.game, &state.proposals, &state.ratings);
    let pos = g.position();
    let started = matches!(g.status(), Status::Active | Status::Finished) || g.row.imported;
    let out = eliminations(g);
    let outcome = pos.outcome();
    let your_seat = viewer
        .and_then(|v| g.seat_of(v))
        .filter(|s| s.state == SeatState::Joined)
        .map(|s| s.seat);
    let players = g
        .seats
        .iter()
        .map(|s| {
            let name = seat_name(s.seat);
            let state = if !started {
                s.state.as_str().to_owned()
            } else if out.contains_key(name) {
                "eliminated".to_owned()
            } else {
                match outcome {
                    Some(crate::rules::Outcome::Win(w, _)) if w == s.seat => "won".to_owned(),
                    Some(crate::rules::Outcome::Win(..)) => "lost".to_owned(),
                    Some(crate::rules::Outcome::Draw(set, _)) if set.contains(s.seat) => {
                        "drew".to_owned()
                    }
                    _ => "playing".to_owned(),
                }
            };
            PlayerView {
                seat: name.to_owned(),
                username: s.username.clone(),
                bot: s.bot_level.is_some(),
                label: s.label().map(str::to_owned),
                state,
                elimination: out.get(name).cloned(),
                in_check: started && pos.is_alive(s.seat) && pos.in_check(s.seat),
                vacation_until: vacation_until(g, s).filter(|_| your_seat.is_some()),
                rating: ratings
                    .iter()
                    .find(|c| Some(c.user_id.as_str()) == s.user_id.as_deref())
                    .map(Into::into),
            }
        })
        .collect();
    let your_turn =
        g.status() == Status::Active && your_seat.is_some() && pos.to_move() == your_seat;
    let legal_moves = your_turn.then(|| {
        let mut v: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    });
    let last_move = g.standing.last_move.as_ref().map(|m| MoveRef {
        r#move: m.notation.clone(),
        seat: m.seat.clone(),
        ply: m.ply.unwrap_or_default(),
        at: utc(m.at),
    });
    let result = outcome.map(|o| match o {
        crate::rules::Outcome::Win(p, r) => ResultView {
            winner: Some(seat_name(p).to_owned()),
            draw: None,
            reason: r.code().to_owned(),
        },
        crate::rules::Outcome::Draw(set, reason) => ResultView {
            winner: None,
            draw: Some(seats(set)),
            reason: reason.code().to_owned(),
        },
    });
    GameView {
        id: g.row.id.to_string(),
        status: g.row.status.as_str().to_owned(),
        players,
        to_move: if g.status() == Status::Active {
            pos.to_move().map(|p| seat_name(p).to_owned())
        } else {
            None
        },
        ply: pos.ply() as i32,
        position: pos.to_string(),
        alliance: pos.alliance().map(|a| AllianceView {
            seats: seats(a.members()),
        }),
        deadline: g.row.deadline.map(utc),
        result,
        your_seat: your_seat.map(|p| seat_name(p).to_owned()),
        your_turn,
        legal_moves,
        last_move,
        board: board(pos),
        hands: hands(pos),
        castling: seats(pos.castling()),
        days_per_move: g.row.days_per_move,
        time_control: state.time_control,
        pause_on_weekends: g.row.pause_on_weekends,
        vacation: g.row.vacation,
        clocks: state.clocks.map(|c| clock_views(g, &c)),
        rated: g.row.rated,
        options: OptionsView {
            stuck_piece: g.row.stuck_piece.clone(),
            illumination: g.row.illumination.clone(),
        },
        allies: g
            .row
            .allies
            .as_deref()
            .and_then(crate::rules::Alliance::parse)
            .map(|a| seats(a.members())),
        // A GameState holds only pending proposals.
        alliance_proposals: proposals.iter().cloned().map(ProposalView::from).collect(),
        draw_offer: state.draw_offer.as_ref().map(|o| DrawOfferView {
            by: seat_name(o.by).to_owned(),
            accepted: seats(o.accepted),
            awaiting: o
                .awaiting(pos)
                .into_iter()
                .map(|p| seat_name(p).to_owned())
                .collect(),
            ply: o.ply,
            offered_at: utc(o.offered_at),
        }),
        actions: g.row.seq,
        created_by: g.creator_name.clone(),
        created_at: utc(g.row.created_at),
        started_at: g.row.started_at.map(utc),
        finished_at: g.row.finished_at.map(utc),
        expires_at: g.row.expires_at.map(utc),
        updated_at: utc(g.row.updated_at),
    }
}

/// One action in a game's history.
#[derive(Debug, Serialize, ToSchema)]
pub struct ActionView {
    /// 1, 2, 3… in the order taken.
    pub seq: i32,
    /// `move`, `alliance`, `resign`, `timeout` or `draw_agreed`.
    #[schema(example = "move")]
    pub kind: String,
    /// For moves: the ply it was played at.
    pub ply: Option<i32>,
    /// R33 for moves; `ally:fm`, `resign:m`, `timeout:l`, `draw:agreed` otherwise.
    #[schema(example = "7k7j")]
    pub notation: String,
    /// The seat that acted (for alliances: null).
    pub seat: Option<String>,
    pub username: Option<String>,
    pub at: DateTime<Utc>,
    /// The position string after it (R32).
    pub position: String,
    /// What the rules did besides the move: alliances, eliminations, the end.
    #[schema(value_type = Vec<Object>)]
    pub effects: Value,
    /// Played by the server from the player's premoves.
    pub premove: bool,
}

pub fn action_views(h: &History) -> Vec<ActionView> {
    let g = &h.game;
    h.actions
        .iter()
        .zip(g.game.entries())
        .map(|(a, entry)| ActionView {
            seq: a.seq,
            kind: a.kind.as_str().to_owned(),
            ply: a.ply,
            notation: a.notation.clone(),
            seat: a.seat.clone(),
            username: a
                .seat
                .as_deref()
                .and_then(crate::games::model::parse_seat)
                .and_then(|p| g.seat(p).name().map(str::to_owned)),
            at: utc(a.created_at),
            position: a.position_after.clone(),
            // What the rules did on replay: the same as the stored effects,
            // and never a guess if those were damaged.
            effects: serde_json::to_value(entry.events.iter().map(Effect::of).collect::<Vec<_>>())
                .expect("effects serialize"),
            premove: a.premove,
        })
        .collect()
}

/// A game in a list.
#[derive(Serialize, ToSchema)]
pub struct GameSummary {
    pub id: String,
    pub status: String,
    pub players: Vec<PlayerView>,
    pub to_move: Option<String>,
    pub ply: i32,
    pub position: String,
    pub deadline: Option<DateTime<Utc>>,
    pub result: Option<ResultView>,
    pub your_seat: Option<String>,
    pub your_turn: bool,
    pub days_per_move: Option<i32>,
    pub time_control: TimeControl,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}
impl From<Listed> for GameSummary {
    fn from(l: Listed) -> Self {
        Self {
            players: l
                .seats
                .iter()
                .map(|s| PlayerView {
                    seat: seat_name(s.seat).to_owned(),
                    username: s.username.clone(),
                    bot: s.bot_level.is_some(),
                    label: s.label().map(str::to_owned),
                    state: s.state.as_str().to_owned(),
                    elimination: None,
                    in_check: false,
                    vacation_until: s
                        .vacation_until
                        .filter(|_| l.row.vacation && l.your_seat.is_some())
                        .map(utc),
                    rating: None,
                })
                .collect(),
            id: l.row.id.into_string(),
            to_move: l.row.to_move.filter(|_| l.row.status == Status::Active),
            ply: l.row.ply,
            status: l.row.status.as_str().to_owned(),
            position: l.row.position,
            deadline: l.row.deadline.map(utc),
            result: l.result.map(ResultView::from),
            your_seat: l.your_seat.map(|p| seat_name(p).to_owned()),
            your_turn: l.your_turn,
            days_per_move: l.row.days_per_move,
            time_control: l.time_control,
            rated: l.row.rated,
            created_at: utc(l.row.created_at),
            updated_at: utc(l.row.updated_at),
        }
    }
}

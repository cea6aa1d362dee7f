//! The words of each mail, in plain text and HTML. A message is built once as
//! a list of parts and rendered both ways, so the two bodies always say the
//! same thing. Game mail is written from the outbox event's payload, which
//! holds what the mail needs (names per seat, the last move, the deadline).

use chrono::{DateTime, Utc};

use crate::games::events::{self, Effect, GameEvent, Happened, StoredEvent};
use crate::render::xml::escape;

/// A rendered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    pub subject: String,
    pub text: String,
    pub html: String,
}

enum Part {
    Para(String),
    /// Label and value, one per line.
    Facts(Vec<(String, String)>),
    /// A label and the address it goes to.
    Link(String, String),
}

/// A message being written.
struct Doc {
    subject: String,
    parts: Vec<Part>,
}

impl Doc {
    fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            parts: Vec::new(),
        }
    }

    fn para(mut self, text: impl Into<String>) -> Self {
        self.parts.push(Part::Para(text.into()));
        self
    }

    fn facts(mut self, facts: Vec<(&str, String)>) -> Self {
        let facts: Vec<(String, String)> = facts
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        if !facts.is_empty() {
            self.parts.push(Part::Facts(facts));
        }
        self
    }

    fn link(mut self, label: impl Into<String>, url: impl Into<String>) -> Self {
        self.parts.push(Part::Link(label.into(), url.into()));
        self
    }

    fn render(self, greeting: &str, footer: &Footer) -> Composed {
        let mut text = format!("Hello {greeting},\n\n");
        let mut html = format!(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n\
             <body style=\"font-family: sans-serif; line-height: 1.5\">\n<p>Hello {},</p>\n",
            escape(&self.subject),
            escape(greeting)
        );
        for part in &self.parts {
            match part {
                Part::Para(p) => {
                    text.push_str(p);
                    text.push_str("\n\n");
                    html.push_str(&format!("<p>{}</p>\n", escape(p)));
                }
                Part::Facts(facts) => {
                    html.push_str("<table>\n");
                    for (k, v) in facts {
                        text.push_str(&format!("{k}: {v}\n"));
                        html.push_str(&format!(
                            "<tr><th align=\"left\">{}</th><td>{}</td></tr>\n",
                            escape(k),
                            escape(v)
                        ));
                    }
                    text.push('\n');
                    html.push_str("</table>\n");
                }
                Part::Link(label, url) => {
                    text.push_str(&format!("{label}: {url}\n\n"));
                    html.push_str(&format!(
                        "<p><a href=\"{}\">{}</a></p>\n",
                        escape(url),
                        escape(label)
                    ));
                }
            }
        }
        text.push_str("-- \nSannin, correspondence sannin shogi\n");
        html.push_str("<hr>\n<p style=\"font-size: smaller; color: #555\">");
        if let Some(url) = &footer.unsubscribe {
            text.push_str(&format!("Stop mail like this ({}): {url}\n", footer.what));
            html.push_str(&format!(
                "<a href=\"{}\">Stop mail like this</a> ({}). ",
                escape(url),
                escape(&footer.what)
            ));
        }
        text.push_str(&format!(
            "All mail settings: {}/api/v1/me/notifications\n",
            footer.public_url
        ));
        html.push_str(&format!(
            "All mail settings: <code>GET {}/api/v1/me/notifications</code></p>\n</body></html>\n",
            escape(&footer.public_url)
        ));
        Composed {
            subject: self.subject,
            text,
            html,
        }
    }
}

/// What ends every message.
pub struct Footer {
    pub public_url: String,
    /// The one-click unsubscribe link, for mail one can opt out of.
    pub unsubscribe: Option<String>,
    /// What the link stops, in words.
    pub what: String,
}

/// Names of the people in a game, by seat, from an event's `players`.
struct Players<'a> {
    seats: [(&'static str, Option<&'a str>); 3],
}

impl<'a> Players<'a> {
    fn of(players: &'a events::Players) -> Self {
        Self {
            seats: players.seats(),
        }
    }

    fn name(&self, seat: &str) -> String {
        self.seats
            .iter()
            .find(|(s, _)| *s == seat)
            .and_then(|(_, n)| *n)
            .map_or_else(|| format!("the {seat} seat"), str::to_owned)
    }

    /// Everyone but `me`, as "alice and bob".
    fn others(&self, me: &str) -> String {
        let names: Vec<String> = self
            .seats
            .iter()
            .filter(|(_, n)| *n != Some(me))
            .map(|(s, _)| self.name(s))
            .collect();
        names.join(" and ")
    }

    fn table(&self) -> String {
        self.seats
            .iter()
            .map(|(s, _)| format!("{} ({s})", self.name(s)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn when(t: &DateTime<Utc>) -> String {
    t.format("%A %-d %B %Y, %H:%M UTC").to_string()
}

fn when_set(t: &Option<DateTime<Utc>>) -> String {
    t.as_ref().map(when).unwrap_or_default()
}

fn words(code: &str) -> String {
    code.replace(['-', '_'], " ")
}

/// The subject line's wording per mailed event type, for settings pages and
/// unsubscribe confirmations.
pub fn describe(event_type: &str) -> &'static str {
    match event_type {
        events::INVITED => "invitations to games",
        events::STARTED => "games starting",
        events::YOUR_TURN => "your turn to move",
        events::ALLIANCE_PROPOSED => "alliance proposals",
        events::DRAW_OFFERED => "draw offers",
        events::CHAT => "chat messages",
        events::PLAYER_ELIMINATED => "players eliminated",
        events::FINISHED => "games finished",
        events::DEADLINE_APPROACHING => "deadline reminders",
        events::PLAYER_ON_VACATION => "opponents going on vacation",
        events::PLAYER_BACK => "opponents back from vacation",
        events::TIME_GIVEN => "time given in your games",
        super::WEBHOOK_DISABLED => "webhooks disabled",
        _ => "this kind of mail",
    }
}

/// `1 day 2 hours`, `36 minutes`.
fn duration_words(seconds: i64) -> String {
    let part = |n: i64, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    let units = [
        (seconds / 86_400, "day"),
        (seconds % 86_400 / 3600, "hour"),
        (seconds % 3600 / 60, "minute"),
    ];
    let parts: Vec<String> = units
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, u)| part(*n, u))
        .collect();
    if parts.is_empty() {
        "no time".to_owned()
    } else {
        parts.join(" ")
    }
}

/// Links into a game: its page in the web client (what a person opens),
/// and its resource in the API (for scripts, named in the text).
pub struct GameLinks {
    pub page: String,
    pub game: String,
    pub board: String,
}

impl GameLinks {
    pub fn new(public_url: &str, game_id: &str, seat: Option<&str>) -> Self {
        let page = format!("{public_url}/games/{game_id}");
        let game = format!("{public_url}/api/v1/games/{game_id}");
        let board = match seat {
            Some(seat) => format!("{game}/board.svg?view={seat}"),
            None => format!("{game}/board.svg"),
        };
        Self { page, game, board }
    }
}

/// Mail for a game event to `me` (a username); `None` for event types not mailed.
pub fn game_event(
    stored: &StoredEvent,
    me: &str,
    public_url: &str,
    footer: &Footer,
) -> Option<Composed> {
    use GameEvent as E;
    let players = match &stored.event {
        E::Invited(e) => &e.players,
        E::Started(e) => &e.players,
        E::YourTurn(e) => &e.players,
        E::AllianceProposed(e) => &e.players,
        E::AllianceFormed(e) | E::PlayerEliminated(e) | E::Finished(e) => &e.players,
        E::DeadlineApproaching(e) => &e.players,
        E::Cancelled(e) | E::Expired(e) => &e.players,
        E::DrawOffered(e) => &e.players,
        E::Chat(e) => &e.players,
        E::PlayerOnVacation(e) => &e.players,
        E::PlayerBack(e) => &e.players,
        E::TimeGiven(e) => &e.players,
        E::Move(_) | E::Declined(_) | E::DrawDeclined(_) => return None,
    };
    let players = Players::of(players);
    let my_seat = players
        .seats
        .iter()
        .find(|(_, n)| *n == Some(me))
        .map(|(s, _)| *s);
    let links = GameLinks::new(public_url, &stored.game_id, my_seat);
    let others = players.others(me);
    let doc = match &stored.event {
        E::Invited(e) => {
            let by = &e.invited_by;
            let time = match (e.time_control, e.days_per_move) {
                (Some(c), _) => c.describe(),
                (None, Some(d)) => format!("{d} day(s) per move"),
                (None, None) => "none".to_owned(),
            };
            Doc::new(format!("{by} invites you to a game of sannin shogi"))
                .para(format!(
                    "{by} invites you to play sannin shogi, the three-player game, in the {} seat.",
                    e.seat
                ))
                .facts(vec![
                    ("Players", players.table()),
                    ("Time", time),
                    ("Answer by", when_set(&e.expires_at)),
                ])
                .para(format!(
                    "To accept: POST {}/join. To decline: POST {}/decline.",
                    links.game, links.game
                ))
                .link("The game", &links.page)
        }
        E::Started(e) => Doc::new(format!("Your game with {others} has started"))
            .para(format!(
                "Everyone has joined: your game of sannin shogi with {others} has started."
            ))
            .facts(vec![
                ("Players", players.table()),
                (
                    "To move",
                    e.to_move
                        .as_deref()
                        .map(|s| players.name(s))
                        .unwrap_or_default(),
                ),
                ("Deadline", when_set(&e.deadline)),
            ])
            .link("The game", &links.page)
            .link("The board", &links.board),
        E::YourTurn(e) => {
            let ply = |p: Option<i32>| p.map(|p| p.to_string()).unwrap_or_default();
            let last_move = match &e.last_move {
                Some(last) if last.seat.as_deref() == my_seat && my_seat.is_some() => {
                    format!("you played {} (ply {})", last.notation, ply(last.ply))
                }
                Some(last) => format!(
                    "{} played {} (ply {})",
                    last.seat
                        .as_deref()
                        .map(|s| players.name(s))
                        .unwrap_or_default(),
                    last.notation,
                    ply(last.ply)
                ),
                None => "none yet: you open the game".to_owned(),
            };
            Doc::new(format!("Your move against {others}"))
                .para(format!(
                    "It is your turn in your game of sannin shogi with {others}."
                ))
                .facts(vec![
                    ("Last move", last_move),
                    ("Move by", when_set(&e.deadline)),
                    ("Players", players.table()),
                ])
                .para(format!(
                    "To move: POST {}/moves with {{\"move\": \"…\", \"ply\": {}}}.",
                    links.game, e.ply
                ))
                .link("The game", &links.page)
                .link("The board", &links.board)
        }
        E::AllianceProposed(e) => {
            let from = e
                .from_username
                .clone()
                .unwrap_or_else(|| players.name(&e.from));
            let id = &e.proposal_id;
            Doc::new(format!("{from} proposes an alliance"))
                .para(format!(
                    "{from} proposes an alliance in your game with {others}."
                ))
                .para(format!(
                    "To accept: POST {}/alliance/proposals/{id}/accept. To decline: POST {}/alliance/proposals/{id}/decline.",
                    links.game, links.game
                ))
                .link("The game", &links.page)
                .link("The board", &links.board)
        }
        E::PlayerEliminated(Happened {
            effect: Effect::PlayerEliminated { seat, reason, by },
            ply,
            ..
        }) => {
            let who = players.name(seat);
            let reason = words(reason);
            let (subject, lead) = if Some(seat.as_str()) == my_seat {
                (
                    format!("You are out of your game with {others}"),
                    format!("You were eliminated ({reason})."),
                )
            } else {
                (
                    format!("{who} is out of your game with {others}"),
                    format!("{who} was eliminated ({reason})."),
                )
            };
            let by = by.as_deref().map(|s| players.name(s)).unwrap_or_default();
            Doc::new(subject)
                .para(lead)
                .facts(vec![("By", by), ("At ply", ply.to_string())])
                .link("The game", &links.page)
                .link("The board", &links.board)
        }
        E::Finished(Happened {
            effect: Effect::Finished { result },
            ..
        }) => {
            let reason = words(&result.reason);
            let winner = result.winner.as_deref();
            let outcome = match winner {
                Some(w) if Some(w) == my_seat => format!("You won ({reason})."),
                Some(w) => format!("{} won ({reason}).", players.name(w)),
                None => format!("The game is drawn ({reason})."),
            };
            let subject = match winner {
                Some(w) if Some(w) == my_seat => format!("You won your game with {others}"),
                Some(w) => format!("Game over: {} won", players.name(w)),
                None => format!("Game over: your game with {others} is drawn"),
            };
            Doc::new(subject)
                .para(format!("Your game of sannin shogi with {others} is over. {outcome}"))
                .facts(vec![("Players", players.table())])
                .link("The game", &links.page)
                .link("The record", format!("{}/record", links.game))
                .link("The final board", &links.board)
        }
        E::DeadlineApproaching(e) => Doc::new(format!(
            "Time is running out in your game with {others}"
        ))
        .para(format!(
            "Your move in the game with {others} is due soon. If you do not move in time, you lose the game on time."
        ))
        .facts(vec![("Move by", when(&e.deadline))])
        .link("The game", &links.page)
        .link("The board", &links.board),
        E::DrawOffered(e) => {
            let from = e.username.clone().unwrap_or_else(|| players.name(&e.seat));
            let awaiting: Vec<String> = e.awaiting.iter().map(|s| players.name(s)).collect();
            Doc::new(format!("{from} offers a draw"))
                .para(format!(
                    "{from} offers a draw in your game with {others}. The game ends drawn once every player still in it accepts; moving instead of answering declines."
                ))
                .facts(vec![
                    ("Offered at ply", e.ply.to_string()),
                    ("Waiting for", awaiting.join(" and ")),
                ])
                .para(format!(
                    "To accept: POST {}/draw/accept. To decline: POST {}/draw/decline.",
                    links.game, links.game
                ))
                .link("The game", &links.page)
                .link("The board", &links.board)
        }
        E::PlayerOnVacation(e) => {
            let who = e.username.clone().unwrap_or_else(|| players.name(&e.seat));
            Doc::new(format!("{who} is on vacation"))
                .para(format!(
                    "{who} went on vacation: their clock in your game with {others} stands still until they return. A move of theirs ends the vacation early."
                ))
                .facts(vec![("Back by", when(&e.until))])
                .link("The game", &links.page)
        }
        E::PlayerBack(e) => {
            let who = e.username.clone().unwrap_or_else(|| players.name(&e.seat));
            let why = match e.reason.as_str() {
                "moved" => "made a move, which ended their vacation",
                "over" => "is back: their vacation is over",
                _ => "ended their vacation early",
            };
            let clock = match e.deadline {
                Some(d) => format!("It is their move; their clock runs again, to {}.", when(&d)),
                None => "Their clock runs again when it is their move.".to_owned(),
            };
            Doc::new(format!("{who} is back from vacation"))
                .para(format!("{who} {why} in your game with {others}. {clock}"))
                .link("The game", &links.page)
        }
        E::TimeGiven(e) => {
            let from = e.from_username.clone().unwrap_or_else(|| players.name(&e.from));
            let to_me = Some(e.to.as_str()) == my_seat;
            let to = if to_me {
                "you".to_owned()
            } else {
                e.to_username.clone().unwrap_or_else(|| players.name(&e.to))
            };
            let given = duration_words(e.seconds);
            let mut doc = Doc::new(format!("{from} gave {to} {given}"))
                .para(format!(
                    "{from} gave {to} {given} more on the clock in your game with {others}."
                ));
            if let Some(d) = &e.deadline {
                let due = if to_me { "Your move is due by" } else { "Their move is due by" };
                doc = doc.facts(vec![(due, when(d))]);
            }
            doc.link("The game", &links.page)
        }
        E::Chat(e) => {
            let from = e.username.clone().unwrap_or_else(|| players.name(&e.from));
            let (subject, lead) = if e.to == "all" {
                (
                    format!("{from} wrote to the table"),
                    format!("{from} wrote to the table in your game with {others}:"),
                )
            } else {
                (
                    format!("{from} wrote to you privately"),
                    format!(
                        "{from} wrote to you privately in your game with {others} (the third player does not see it):"
                    ),
                )
            };
            let reply = if e.to == "all" {
                "all".to_owned()
            } else {
                e.from.clone()
            };
            Doc::new(subject)
                .para(lead)
                .para(e.text.clone())
                .para(format!(
                    "To answer: POST {}/chat with {{\"text\": \"…\", \"to\": \"{reply}\"}}.",
                    links.game
                ))
                .link("The conversation", format!("{}/chat", links.game))
                .link("The board", &links.board)
        }
        _ => return None,
    };
    Some(doc.render(me, footer))
}

/// Mail to confirm an address.
pub fn verification(username: &str, email: &str, link: &str, public_url: &str) -> Composed {
    Doc::new(VERIFICATION_SUBJECT)
        .para(format!(
            "Please confirm that {email} is your address: open the link below. Until then, Sannin sends you no game mail."
        ))
        .link("Confirm my address", link)
        .para("The link works for seven days. If you did not sign up for Sannin, ignore this mail.")
        .render(
            username,
            &Footer {
                public_url: public_url.to_owned(),
                unsubscribe: None,
                what: String::new(),
            },
        )
}

const VERIFICATION_SUBJECT: &str = "Confirm your email address for Sannin";

/// Instead of a verification link, to an address another account holds:
/// someone asked for it; nothing changed.
pub fn address_held(email: &str, public_url: &str) -> Composed {
    // The verification mail's own subject: the asker's list of recent mail
    // shows it, and must not tell the two apart.
    Doc::new(VERIFICATION_SUBJECT)
        .para(format!(
            "Someone asked to use {email} for another Sannin account. This address already belongs to your account, and nothing has changed."
        ))
        .para("If it was you, log in to the account this address belongs to instead. If it was not, you need do nothing.")
        .render(
            "there",
            &Footer {
                public_url: public_url.to_owned(),
                unsubscribe: None,
                what: String::new(),
            },
        )
}

/// Mail to a webhook's owner when the server disables it.
pub fn webhook_disabled(
    username: &str,
    url: &str,
    reason: &str,
    webhook_api_url: &str,
    footer: &Footer,
) -> Composed {
    let why = match reason {
        "gone" => "its endpoint answered 410 Gone",
        _ => "deliveries kept failing after every retry",
    };
    Doc::new("Your Sannin webhook was disabled")
        .para(format!("Your webhook to {url} was disabled: {why}."))
        .para(format!(
            "See what happened: GET {webhook_api_url}/deliveries. Turn it back on: PATCH {webhook_api_url} with {{\"active\": true}}."
        ))
        .link("The webhook", webhook_api_url)
        .render(username, footer)
}

#[cfg(test)]
mod tests;

//! Table talk: messages to the whole table or private between two players
//! (to negotiate an alliance, say: the third player never sees them, not in
//! the chat, the events, the mail or the webhooks). Players only. A private
//! message is addressed to the account in the seat when it is written, never
//! to whoever holds the seat later. Messages are stored as written and
//! numbered per game under the game's lock; each reader sees them numbered
//! among what they may read, so the numbers do not betray private messages
//! between the other two. The game's version is untouched (its view does not
//! show them). Each player may write
//! a few per minute in a game, counted from the stored messages, so every
//! server process counts the same.

use crate::domain::{GameId, UserId};
use chrono::NaiveDateTime;

use crate::db::chat::ChatRow;
use crate::db::{self, DbConnection};
use crate::rules::Player;

use super::events::{self, GameEvent, Players};
use super::model::{load, load_for_update, seat_name, Loaded};
use super::states::SeatState;
use super::{GameError, Games};

/// The longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// The most messages one read answers.
pub const MAX_PAGE: i64 = 200;

/// Whom a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipient {
    Table,
    Seat(Player),
}

/// A message to write.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub text: String,
    pub to: Recipient,
}

/// A message as one reader sees it.
pub struct Message {
    /// Its number among the messages this reader may read: 1, 2, 3…
    pub n: i32,
    pub row: ChatRow,
    /// The writer's username.
    pub username: Option<String>,
}

/// What a player reads: the messages and whether they muted the table.
pub struct ChatPage {
    pub messages: Vec<Message>,
    pub table_muted: bool,
}

/// The text as it will be stored, or why not: 1 to 500 characters, not only
/// blanks, no control characters but line breaks and tabs.
pub fn check_text(text: &str) -> Result<(), GameError> {
    let n = text.chars().count();
    if text.trim().is_empty() || n > MAX_CHARS {
        return Err(GameError::invalid(
            "text",
            "length",
            format!("must be 1 to {MAX_CHARS} characters, not all blank (it has {n})"),
        ));
    }
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(GameError::invalid(
            "text",
            "control-character",
            "must not hold control characters other than line breaks and tabs",
        ));
    }
    Ok(())
}

/// The caller's seat among the game's players, joined.
fn player_seat(g: &Loaded, user_id: &str) -> Result<Player, GameError> {
    g.joined_seat(user_id)
}

/// Writes a message; tells its recipients (`game.chat`), but for table
/// messages not those who muted the table.
pub async fn post_message(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    message: NewMessage,
    now: NaiveDateTime,
) -> Result<Message, GameError> {
    check_text(&message.text)?;
    let (settings, caller, id) = (games.settings, caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load_for_update(conn, &id)?;
            let seat = player_seat(&g, &caller)?;
            let to = match message.to {
                Recipient::Seat(p) if p == seat => {
                    return Err(GameError::invalid(
                        "to",
                        "self",
                        "a message goes to the table or to another player",
                    ))
                }
                // Only a player who has joined may be written to: an
                // invitation can be declined and the seat taken by another.
                Recipient::Seat(p) if g.seat(p).state != SeatState::Joined => {
                    return Err(GameError::invalid(
                        "to",
                        "empty-seat",
                        format!("nobody has taken the {} seat yet", seat_name(p)),
                    ))
                }
                other => other,
            };
            let rate = settings.limits.chat_messages;
            let written = db::chat::written_since(conn, &id, &caller, rate.since(now))?;
            rate.admit(&written, now)?;
            let row = ChatRow {
                game_id: g.row.id.clone(),
                n: db::chat::last_n(conn, &id)? + 1,
                user_id: caller.clone(),
                from_seat: seat_name(seat).to_owned(),
                to_seat: match to {
                    Recipient::Table => None,
                    Recipient::Seat(p) => Some(seat_name(p).to_owned()),
                },
                body: message.text,
                created_at: now,
                to_user_id: match to {
                    Recipient::Table => None,
                    Recipient::Seat(p) => g.seat(p).user_id.clone().map(UserId::from),
                },
            };
            db::chat::insert(conn, &row)?;
            tell(conn, &g, &row, to, now)?;
            let username = g.seat(seat).name().map(str::to_owned);
            let n = db::chat::number_for(conn, &id, &caller, row.n)?;
            Ok(Message { n, row, username })
        })
    })
    .await
}

/// The `game.chat` event to the message's recipients.
fn tell(
    conn: &mut DbConnection,
    g: &Loaded,
    row: &ChatRow,
    to: Recipient,
    now: NaiveDateTime,
) -> Result<(), GameError> {
    let muted = match to {
        Recipient::Table => db::chat::muted(conn, &g.row.id)?,
        Recipient::Seat(_) => Vec::new(),
    };
    let recipients: Vec<String> = match to {
        Recipient::Table => g.player_ids(),
        Recipient::Seat(_) => row.to_user_id.iter().map(|u| u.to_string()).collect(),
    };
    let from = super::model::parse_seat_name(&row.from_seat).expect("written above");
    let to: Vec<&str> = recipients
        .iter()
        .map(String::as_str)
        .filter(|u| *u != row.user_id.as_str())
        .filter(|u| !muted.iter().any(|m| m.as_str() == *u))
        .collect();
    // One event per recipient: each knows the message by their own number.
    let mut events = Vec::with_capacity(to.len());
    for user in to {
        let event = GameEvent::Chat(events::ChatPosted {
            n: db::chat::number_for(conn, &g.row.id, user, row.n)?,
            from: row.from_seat.clone(),
            username: g.seat(from).name().map(str::to_owned),
            to: row.to_seat.clone().unwrap_or_else(|| "all".into()),
            text: row.body.clone(),
            players: Players::of(g),
        });
        events.push((vec![user], event));
    }
    events::emit_all(conn, &g.row.id, events, now)?;
    Ok(())
}

/// The messages the caller may read after the first `after` of them (their
/// own numbering), oldest first.
pub async fn read_messages(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    after: i32,
    limit: i64,
) -> Result<ChatPage, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        let g = load(conn, &id)?;
        player_seat(&g, &caller)?;
        let rows = db::chat::visible_page(
            conn,
            &id,
            &caller,
            i64::from(after),
            limit.clamp(1, MAX_PAGE),
        )
        .map_err(|e| super::model::of_row(e, format!("the chat of game {id}")))?;
        let mut messages = Vec::with_capacity(rows.len());
        for (i, row) in rows.into_iter().enumerate() {
            // (Saturating: `after` may be any int32 a client sends.)
            let n = after.saturating_add(1).saturating_add(i as i32);
            let from = super::model::parse_seat_name(&row.from_seat).ok_or_else(|| {
                anyhow::anyhow!(
                    "chat message {} of game {id} has no seat {:?}",
                    row.n,
                    row.from_seat
                )
            })?;
            let username = g.seat(from).name().map(str::to_owned);
            messages.push(Message { n, row, username });
        }
        let table_muted = db::chat::muted(conn, &id)?
            .iter()
            .any(|u| u.as_str() == caller.as_str());
        Ok(ChatPage {
            messages,
            table_muted,
        })
    })
    .await
}

/// Mutes or unmutes the game's table chat for the caller; answers the setting.
pub async fn mute_table(
    games: &Games,
    caller: &UserId,
    game_id: &GameId,
    muted: bool,
    now: NaiveDateTime,
) -> Result<bool, GameError> {
    let (caller, id) = (caller.to_owned(), game_id.to_owned());
    db::run(&games.pool, move |conn| {
        db::write_transaction(conn, |conn| {
            let g = load(conn, &id)?;
            player_seat(&g, &caller)?;
            db::chat::set_muted(conn, &id, &caller, muted, now)?;
            Ok(muted)
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_checked_by_characters_not_bytes() {
        assert!(check_text("ally with me against first?").is_ok());
        assert!(check_text(&"é".repeat(MAX_CHARS)).is_ok());
        assert!(check_text("line one\nline two\ttabbed").is_ok());
        for bad in ["", "   \n", "bell\u{7}", "nul\u{0}"] {
            assert!(check_text(bad).is_err(), "{bad:?}");
        }
        assert!(check_text(&"x".repeat(MAX_CHARS + 1)).is_err());
    }
}

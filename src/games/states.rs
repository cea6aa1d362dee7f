//! The words a game's rows are in: stored as text through diesel
//! (`stored_as_text!`), held as enums everywhere else.

use diesel::deserialize::FromSqlRow;
use diesel::expression::AsExpression;
use diesel::sql_types::Text;

use crate::stored_words as words;

/// Life of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Text)]
pub enum Status {
    /// Waiting for players to take seats or accept invitations.
    Open,
    Active,
    Finished,
    /// Called off by its creator before it started.
    Cancelled,
    /// Not filled within the time invitations and open seats last.
    Expired,
    /// Imported from a record that stops before the end: for study, takes no moves.
    Analysis,
}

words!(Status {
    Open = "open",
    Active = "active",
    Finished = "finished",
    Cancelled = "cancelled",
    Expired = "expired",
    Analysis = "analysis",
});
crate::stored_as_text!(Status, "games.status");

/// A seat before the game starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Text)]
pub enum SeatState {
    /// Anyone may take it.
    Open,
    /// Reserved for an invited user who has not answered.
    Invited,
    /// Taken.
    Joined,
}

words!(SeatState {
    Open = "open",
    Invited = "invited",
    Joined = "joined",
});
crate::stored_as_text!(SeatState, "game_seats.state");

/// Where an alliance proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Text)]
pub enum ProposalStatus {
    /// Awaiting the answer of the player it went to.
    Pending,
    Accepted,
    Declined,
    /// Taken back by its proposer.
    Withdrawn,
    /// Its premise fell (a move, an elimination, another alliance).
    Lapsed,
}

words!(ProposalStatus {
    Pending = "pending",
    Accepted = "accepted",
    Declined = "declined",
    Withdrawn = "withdrawn",
    Lapsed = "lapsed",
});
crate::stored_as_text!(ProposalStatus, "alliance_proposals.status");

/// What an action row records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, AsExpression, FromSqlRow)]
#[diesel(sql_type = Text)]
pub enum ActionKind {
    Move,
    Alliance,
    Resign,
    TimeOut,
    DrawAgreed,
}

words!(ActionKind {
    Move = "move",
    Alliance = "alliance",
    Resign = "resign",
    TimeOut = "timeout",
    DrawAgreed = "draw_agreed",
});
crate::stored_as_text!(ActionKind, "game_actions.kind");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_reads_back_as_itself() {
        use Status::*;
        for s in [Open, Active, Finished, Cancelled, Expired, Analysis] {
            assert_eq!(Status::parse(s.as_str()), Some(s));
        }
        for s in [SeatState::Open, SeatState::Invited, SeatState::Joined] {
            assert_eq!(SeatState::parse(s.as_str()), Some(s));
        }
        use ProposalStatus as P;
        for s in [
            P::Pending,
            P::Accepted,
            P::Declined,
            P::Withdrawn,
            P::Lapsed,
        ] {
            assert_eq!(P::parse(s.as_str()), Some(s));
        }
        use ActionKind as A;
        for k in [A::Move, A::Alliance, A::Resign, A::TimeOut, A::DrawAgreed] {
            assert_eq!(A::parse(k.as_str()), Some(k));
        }
        assert_eq!(Status::parse("bogus"), None);
    }
}

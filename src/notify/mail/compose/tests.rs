//! What game mail says.
use super::*;
use serde_json::json;

fn footer() -> Footer {
    Footer {
        public_url: "https://s.example".into(),
        unsubscribe: Some("https://s.example/api/v1/unsubscribe?token=t".into()),
        what: "your turn to move".into(),
    }
}

fn stored(event_type: &str, payload: serde_json::Value) -> StoredEvent {
    StoredEvent::parse(&events::test_row(event_type, payload)).unwrap()
}

#[test]
fn your_turn_names_opponents_last_move_deadline_and_links() {
    let payload = json!({
        "game_id": "g1",
        "seat": "middle",
        "ply": 4,
        "deadline": "2026-12-03T14:00:00Z",
        "last_move": {"move": "5g-5f", "seat": "first", "ply": 3},
        "players": {"first": "alice", "middle": "bob", "last": "carol"},
        "position": crate::rules::START,
    });
    let m = game_event(
        &stored(events::YOUR_TURN, payload),
        "bob",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(m.subject, "Your move against alice and carol");
    for body in [&m.text, &m.html] {
        assert!(body.contains("alice played 5g-5f (ply 3)"), "{body}");
        assert!(
            body.contains("Thursday 3 December 2026, 14:00 UTC"),
            "{body}"
        );
        assert!(body.contains("https://s.example/api/v1/games/g1/board.svg?view=middle"));
        assert!(body.contains("https://s.example/api/v1/unsubscribe?token=t"));
    }
}

#[test]
fn html_escapes_names() {
    let payload = json!({
        "game_id": "g1",
        "invited_by": "<b>eve</b>",
        "seat": "last",
        "players": {"first": "<b>eve</b>", "middle": null, "last": "bob"},
    });
    let m = game_event(
        &stored(events::INVITED, payload),
        "bob",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert!(m.html.contains("&lt;b&gt;eve&lt;/b&gt;"));
    assert!(!m.html.contains("<b>eve"));
    assert!(m.text.contains("the middle seat (middle)"));
}

#[test]
fn a_draw_offer_says_who_offers_who_must_answer_and_how() {
    let payload = json!({
        "game_id": "g1",
        "seat": "first",
        "username": "alice",
        "ply": 14,
        "awaiting": ["middle", "last"],
        "players": {"first": "alice", "middle": "bob", "last": "carol"},
    });
    let m = game_event(
        &stored(events::DRAW_OFFERED, payload),
        "carol",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(m.subject, "alice offers a draw");
    for body in [&m.text, &m.html] {
        assert!(body.contains("bob and carol"), "{body}");
        assert!(
            body.contains("moving instead of answering declines"),
            "{body}"
        );
        assert!(body.contains("POST https://s.example/api/v1/games/g1/draw/accept"));
    }
}

#[test]
fn a_chat_message_is_quoted_escaped_and_says_if_it_is_private() {
    let payload = json!({
        "game_id": "g1",
        "n": 3,
        "from": "middle",
        "username": "bob",
        "to": "last",
        "text": "<script>ally?</script> against alice",
        "players": {"first": "alice", "middle": "bob", "last": "carol"},
    });
    let m = game_event(
        &stored(events::CHAT, payload),
        "carol",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(m.subject, "bob wrote to you privately");
    assert!(m.text.contains("<script>ally?</script> against alice"));
    assert!(m
        .html
        .contains("&lt;script&gt;ally?&lt;/script&gt; against alice"));
    assert!(!m.html.contains("<script>"));
    assert!(m.text.contains(r#""to": "middle""#), "{}", m.text);
}

#[test]
fn events_not_mailed_compose_nothing() {
    let declined = stored(
        events::DECLINED,
        json!({"seat": "middle", "username": "bob"}),
    );
    assert!(game_event(&declined, "bob", "x", &footer()).is_none());
}

fn players() -> serde_json::Value {
    json!({"first": "alice", "middle": "bob", "last": "carol"})
}

#[test]
fn vacations_say_who_is_away_until_when_and_why_they_are_back() {
    let away = json!({
        "game_id": "g1", "seat": "middle", "username": "bob",
        "until": "2027-01-16T06:00:00Z", "players": players(),
    });
    let m = game_event(
        &stored(events::PLAYER_ON_VACATION, away),
        "alice",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(m.subject, "bob is on vacation");
    for body in [&m.text, &m.html] {
        assert!(
            body.contains("their clock in your game with bob and carol stands still"),
            "{body}"
        );
        assert!(body.contains("Back by"), "{body}");
        assert!(body.contains("16 January 2027"), "{body}");
    }
    for (reason, says) in [
        ("moved", "made a move, which ended their vacation"),
        ("ended", "ended their vacation early"),
        ("over", "is back: their vacation is over"),
    ] {
        let back = json!({
            "game_id": "g1", "seat": "middle", "username": "bob", "reason": reason,
            "deadline": "2027-01-17T06:00:00Z", "players": players(),
        });
        let m = game_event(
            &stored(events::PLAYER_BACK, back),
            "alice",
            "https://s.example",
            &footer(),
        )
        .unwrap();
        assert_eq!(m.subject, "bob is back from vacation");
        assert!(m.text.contains(says), "{}", m.text);
        assert!(
            m.text
                .contains("their clock runs again, to Sunday 17 January 2027"),
            "{}",
            m.text
        );
    }
}

#[test]
fn time_given_says_who_gave_whom_how_much() {
    let given = json!({
        "game_id": "g1", "from": "last", "from_username": "carol", "to": "middle",
        "to_username": "bob", "hours": 30, "seconds": 108_000, "ply": 2,
        "deadline": "2027-01-17T06:00:00Z", "players": players(),
    });
    let to_bob = game_event(
        &stored(events::TIME_GIVEN, given.clone()),
        "bob",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(to_bob.subject, "carol gave you 1 day 6 hours");
    assert!(
        to_bob.text.contains("Your move is due by"),
        "{}",
        to_bob.text
    );
    let to_alice = game_event(
        &stored(events::TIME_GIVEN, given),
        "alice",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert_eq!(to_alice.subject, "carol gave bob 1 day 6 hours");
    assert!(
        to_alice.text.contains("Their move is due by"),
        "{}",
        to_alice.text
    );
}

#[test]
fn an_invitation_names_its_time_control() {
    let invited = json!({
        "game_id": "g1", "seat": "middle", "invited_by": "alice", "players": players(),
        "days_per_move": null, "expires_at": "2027-01-16T06:00:00Z",
        "time_control": {"kind": "fischer", "initial_days": 7, "increment_days": 1, "max_days": 14},
    });
    let m = game_event(
        &stored(events::INVITED, invited),
        "bob",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert!(
        m.text
            .contains("Time: Fischer: 7 days, +1 day per move, at most 14 days"),
        "{}",
        m.text
    );
    let old = json!({
        "game_id": "g1", "seat": "middle", "invited_by": "alice", "players": players(),
        "days_per_move": 3, "expires_at": "2027-01-16T06:00:00Z",
    });
    let m = game_event(
        &stored(events::INVITED, old),
        "bob",
        "https://s.example",
        &footer(),
    )
    .unwrap();
    assert!(m.text.contains("Time: 3 day(s) per move"), "{}", m.text);
}

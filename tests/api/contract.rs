//! The OpenAPI schemas of request values state what the parsers enforce:
//! for samples on both sides of each limit, the schema and the parser agree.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use utoipa::PartialSchema;

use crate::helpers::{assert_problem, error_fields, spawn_app, Backend};

use sannin::domain::{is_uuid, Email, GameId, Password, TokenName, Username};
use sannin::games::events;
use sannin::games::model::{parse_seat_name, Status};
use sannin::games::DAYS_PER_MOVE;
use sannin::routes::schemas::{
    DaysPerMove, EventType, GameStatus, GameVersion, IlluminationOption, MoveNotation, Seat,
    SeatChoice, StuckPieceOption, WebhookUrl,
};
use sannin::rules::{Illumination, Move, StuckPiece};

/// Whether `value` is valid against the schema `S` (formats checked).
fn schema_accepts<S: PartialSchema>(value: &Value) -> bool {
    let schema = serde_json::to_value(S::schema()).unwrap();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{schema}: {e}"))
        .is_valid(value)
}

/// Checks that the schema and the parser agree on every sample.
fn agree<S: PartialSchema>(samples: &[&str], parser_accepts: impl Fn(&str) -> bool) {
    for sample in samples {
        assert_eq!(
            schema_accepts::<S>(&json!(sample)),
            parser_accepts(sample),
            "schema and parser disagree on {sample:?}"
        );
    }
}

#[test]
fn usernames() {
    let long = "a".repeat(32);
    let too_long = "a".repeat(33);
    agree::<Username>(
        &[
            "alice", "Ab_c-9", "abc", "ab", &long, &too_long, "a b c", "ünï", "abc.def", "abc\n",
            "",
        ],
        |s| Username::parse(s).is_ok(),
    );
}

#[test]
fn passwords_as_far_as_a_schema_can_say() {
    // How guessable a password is (zxcvbn) is beyond any schema; its
    // length and blankness are not.
    let wide = format!("correct horse battery staple {}", "é".repeat(1024 - 29));
    let too_wide = format!("{wide}é");
    agree::<Password>(
        &[
            "correct horse battery staple",
            "k7#Qw9z",
            "éàüöçñß",
            "          ",
            "\u{3000}\t\n k7#Qw9z!",
            &wide,
            &too_wide,
        ],
        |s| !matches!(Password::parse(s.to_owned(), &[]), Err(e) if e.code == "length" || e.code == "blank"),
    );
}

#[test]
fn token_names() {
    let long = "n".repeat(100);
    let too_long = "n".repeat(101);
    let padded = format!(" {long}");
    agree::<TokenName>(
        &[
            "my bot",
            "x",
            "",
            " ",
            "\u{3000}\u{a0}",
            &long,
            &too_long,
            &padded,
            "bell\u{7}",
            "a\u{85}b",
            " ok ",
        ],
        |s| TokenName::parse(s).is_ok(),
    );
}

#[test]
fn email_addresses() {
    let too_long = format!("{}@example.com", "a".repeat(250));
    agree::<Email>(
        &[
            "alice@example.org",
            "a.b+c@sub.example.co",
            "",
            "alice",
            "@example.com",
            "alice@",
            &too_long,
        ],
        |s| Email::parse(s).is_ok(),
    );
}

#[test]
fn ids() {
    agree::<GameId>(
        &[
            "019a1f0e-7c1a-7b3e-9d2f-3c4b5a697887",
            "019A1F0E-7C1A-7B3E-9D2F-3C4B5A697887",
            "019a1f0e7c1a7b3e9d2f3c4b5a697887",
            "",
            "game",
        ],
        is_uuid,
    );
}

#[test]
fn moves_the_notation_can_write() {
    // The longest form: a king on a three-character cell lighting twelve.
    let longest = format!("13m!{}", ["13m"; 12].join(","));
    assert_eq!(longest.len(), 51);
    assert!(schema_accepts::<MoveNotation>(&json!(longest)));
    let too_long = "7".repeat(Move::MAX_NOTATION_LEN + 1);
    // A schema-valid string may still not be a move; a schema-invalid one never is.
    for sample in ["7k7j", "6b6a+", "P*7g", "10d!7d,9e"] {
        assert!(Move::parse(sample).is_ok(), "{sample}");
        assert!(schema_accepts::<MoveNotation>(&json!(sample)), "{sample}");
    }
    for sample in ["", " 7k7j", "7k7j ", "7k 7j", "7k7j\n", "７k7j", &too_long] {
        assert!(Move::parse(sample).is_err(), "{sample:?}");
        assert!(
            !schema_accepts::<MoveNotation>(&json!(sample)),
            "{sample:?}"
        );
    }
}

#[test]
fn words() {
    let samples = [
        "first",
        "middle",
        "last",
        "f",
        "First",
        "random",
        "",
        "open",
        "active",
        "finished",
        "cancelled",
        "expired",
        "analysis",
        "Open",
        "promote",
        "stay",
        "selective",
        "all",
        "game.move",
        "game.nope",
        "stream.end",
    ];
    agree::<Seat>(&samples, |s| parse_seat_name(s).is_some());
    agree::<SeatChoice>(&samples, |s| parse_seat_name(s).is_some() || s == "random");
    agree::<GameStatus>(&samples, |s| Status::parse(s).is_some());
    agree::<StuckPieceOption>(&samples, |s| s.parse::<StuckPiece>().is_ok());
    agree::<IlluminationOption>(&samples, |s| s.parse::<Illumination>().is_ok());
    agree::<EventType>(&samples, |s| events::ALL.contains(&s));
}

#[test]
fn numbers_and_versions() {
    for days in 0..=15 {
        assert_eq!(
            schema_accepts::<DaysPerMove>(&json!(days)),
            DAYS_PER_MOVE.contains(&days),
            "{days}"
        );
    }
    agree::<GameVersion>(
        &[
            "0",
            "12",
            "123456789",
            "1234567890",
            "+5",
            "-1",
            "",
            "1.5",
            " 7",
        ],
        |s| GameVersion::parse(s).is_some(),
    );
}

#[test]
fn webhook_urls_by_their_shape() {
    // Where a host resolves to is beyond a schema; its shape is not.
    for good in [
        "https://bot.example/hooks/sannin",
        "http://192.0.2.10:8080/x",
    ] {
        assert!(schema_accepts::<WebhookUrl>(&json!(good)), "{good}");
    }
    let too_long = format!("https://bot.example/{}", "a".repeat(2000));
    for bad in [
        "",
        "ftp://bot.example/x",
        "bot.example/x",
        "https://",
        &too_long,
    ] {
        assert!(!schema_accepts::<WebhookUrl>(&json!(bad)), "{bad}");
    }
}

/// What the schemas say the server now refuses, through HTTP: a body given
/// as an array of its fields, seats by letter, invitees that are not
/// usernames, moves with spaces around them, stream ids that are not ids
/// (even when the header would win), and an events filter that is not an id.
async fn the_server_refuses_what_the_document_refuses(backend: Backend) {
    let app = spawn_app(backend).await;
    let t = app.trio("ct").await;
    let [a, b, c] = &t.tokens;

    let res = app
        .client
        .post(app.url("/api/v1/accounts"))
        .json(&json!([
            "dave",
            "dave@example.org",
            "correct horse battery staple"
        ]))
        .send()
        .await
        .unwrap();
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(problem["errors"][0]["code"], "type");

    for body in [
        json!({"options": ["promote", "selective"]}),
        json!({"seat": "f"}),
        json!({"allies": ["f", "m"]}),
        json!({"invite": [format!(" {}", t.names[1])], "open_seats": 1}),
    ] {
        let res = app.create_game(a, &body).await;
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }

    let body = json!({"seat": "first", "invite": [t.names[1], t.names[2]]});
    let game: Value = app.create_game(a, &body).await.json().await.unwrap();
    let id = game["id"].as_str().unwrap();
    for token in [b, c] {
        assert_eq!(app.join_game(token, id).await.status(), StatusCode::OK);
    }
    let moves = format!("/api/v1/games/{id}/moves");
    let res = app
        .authed(
            Method::POST,
            &moves,
            a,
            Some(&json!({"move": " 1b2c", "ply": 1})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "malformed-move").await;
    let res = app
        .authed(
            Method::POST,
            &moves,
            a,
            Some(&json!({"move": "1b2c", "ply": 1})),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CREATED);

    let stream = app.url(&format!("/api/v1/games/{id}/stream"));
    for (query, header) in [("?after=+1", None), ("?after=x", Some("1")), ("", Some(""))] {
        let mut req = app.client.get(format!("{stream}{query}"));
        if let Some(h) = header {
            req = req.header("last-event-id", h);
        }
        let res = req.send().await.unwrap();
        assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    }

    let res = app
        .authed(Method::GET, "/api/v1/me/events?game_id=", a, None)
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation-failed").await;
    assert_eq!(error_fields(&problem), ["game_id"]);
    let res = app
        .authed(
            Method::GET,
            &format!("/api/v1/me/events?game_id={id}"),
            a,
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
}

crate::on_both_backends!(the_server_refuses_what_the_document_refuses);

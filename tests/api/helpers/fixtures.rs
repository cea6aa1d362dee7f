//! Fixtures for games: three signed-in players, started games, played moves.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use super::app::TestApp;

/// Three signed-in players, for games.
pub struct Trio {
    pub names: [String; 3],
    pub tokens: [String; 3],
}

impl TestApp {
    pub async fn trio(&self, prefix: &str) -> Trio {
        let mut names = Vec::new();
        let mut tokens = Vec::new();
        for who in ["alice", "bob", "carol"] {
            let user = self.register_user(&format!("{prefix}{who}")).await;
            tokens.push(self.tokens_for(&user).await.access);
            names.push(user.username);
        }
        Trio {
            names: names.try_into().unwrap(),
            tokens: tokens.try_into().unwrap(),
        }
    }

    /// The trio logged in anew, as after the clock moved past their access
    /// tokens' lifetime.
    pub async fn log_in_again(&self, t: &Trio) -> Trio {
        let mut tokens = Vec::new();
        for name in &t.names {
            let res = self.login(name, &format!("{name}-long-password")).await;
            assert_eq!(res.status(), StatusCode::OK);
            let body: Value = res.json().await.unwrap();
            tokens.push(body["access_token"].as_str().unwrap().to_owned());
        }
        Trio {
            names: t.names.clone(),
            tokens: tokens.try_into().unwrap(),
        }
    }

    pub async fn authed(
        &self,
        method: Method,
        path: &str,
        bearer: &str,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self
            .client
            .request(method, self.url(path))
            .bearer_auth(bearer);
        if let Some(b) = body {
            req = req.json(b);
        }
        req.send().await.expect("request sent")
    }

    pub async fn create_game(&self, bearer: &str, body: &Value) -> Response {
        self.authed(Method::POST, "/api/v1/games", bearer, Some(body))
            .await
    }

    pub async fn join_game(&self, bearer: &str, id: &str) -> Response {
        self.authed(
            Method::POST,
            &format!("/api/v1/games/{id}/join"),
            bearer,
            None,
        )
        .await
    }

    pub async fn get_game(&self, bearer: &str, id: &str) -> Response {
        self.authed(Method::GET, &format!("/api/v1/games/{id}"), bearer, None)
            .await
    }

    pub async fn game_json(&self, bearer: &str, id: &str) -> Value {
        let res = self.get_game(bearer, id).await;
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    /// The game's move list (`GET /api/v1/games/{id}/moves`), anonymously.
    pub async fn move_list(&self, id: &str) -> Value {
        let res = self
            .request(Method::GET, &format!("/api/v1/games/{id}/moves"))
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    pub async fn play_move(&self, bearer: &str, id: &str, mv: &str, ply: i64) -> Response {
        self.authed(
            Method::POST,
            &format!("/api/v1/games/{id}/moves"),
            bearer,
            Some(&json!({"move": mv, "ply": ply})),
        )
        .await
    }

    pub async fn events(&self, bearer: &str, game_id: &str) -> Vec<Value> {
        let res = self
            .authed(
                Method::GET,
                &format!("/api/v1/me/events?game_id={game_id}&limit=500"),
                bearer,
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        res.json().await.unwrap()
    }

    /// A started game: trio.names[0] first, [1] middle, [2] last, by invitation.
    pub async fn started_game(&self, trio: &Trio, extra: Value) -> String {
        let mut body = json!({"seat": "first", "invite": [trio.names[1], trio.names[2]]});
        if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
            b.extend(extra);
        }
        let res = self.create_game(&trio.tokens[0], &body).await;
        assert_eq!(res.status(), StatusCode::CREATED);
        let game: Value = res.json().await.unwrap();
        let id = game["id"].as_str().unwrap().to_owned();
        for t in &trio.tokens[1..] {
            assert_eq!(self.join_game(t, &id).await.status(), StatusCode::OK);
        }
        id
    }

    /// Plays moves in turn: each by whoever is to move, at the current ply.
    pub async fn play_all(&self, trio: &Trio, id: &str, moves: &[&str]) -> Value {
        let mut game = self.game_json(&trio.tokens[0], id).await;
        for mv in moves {
            let seat = game["to_move"].as_str().expect("someone to move");
            let who = ["first", "middle", "last"]
                .iter()
                .position(|s| *s == seat)
                .unwrap();
            let ply = game["ply"].as_i64().unwrap();
            let res = self.play_move(&trio.tokens[who], id, mv, ply).await;
            let status = res.status();
            let body: Value = res.json().await.unwrap();
            assert_eq!(status, StatusCode::CREATED, "{mv}: {body}");
            game = body;
        }
        game
    }
}

/// The body of an answer that must be a success.
pub async fn ok(res: Response) -> Value {
    let status = res.status();
    let body: Value = res.json().await.unwrap();
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// The `data` of `who`'s events of `kind` in game `id`.
pub async fn heard(app: &TestApp, t: &Trio, who: usize, id: &str, kind: &str) -> Vec<Value> {
    app.events(&t.tokens[who], id)
        .await
        .into_iter()
        .filter(|e| e["type"] == kind)
        .map(|e| e["data"].clone())
        .collect()
}

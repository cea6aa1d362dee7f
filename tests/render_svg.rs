//! The board picture through the public API: well-formed, complete, escaped, turned
//! by the view, and the same every time.

use roxmltree::{Document, Node};
use sannin::render::{board_svg, SvgOptions};
use sannin::rules::{Cell, Move, Player, Position};

fn has_class(n: &Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|t| t == class))
}

fn with_class<'a>(doc: &'a Document, class: &str) -> Vec<Node<'a, 'a>> {
    doc.descendants()
        .filter(|n| n.is_element() && has_class(n, class))
        .collect()
}

fn parse(svg: &str) -> Document<'_> {
    Document::parse(svg).unwrap_or_else(|e| panic!("not well-formed XML: {e}\n{svg}"))
}

/// All text the document shows, one string per `<text>` element.
fn texts(doc: &Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect()
        })
        .collect()
}

/// A position some way into a game, with captures and promotions: the first legal move
/// that captures or promotes, else the first legal move, for `plies` moves.
fn midgame(plies: usize) -> (Position, Move) {
    let mut pos = Position::start();
    let mut last = None;
    for i in 0..plies {
        let moves = pos.legal_moves();
        let mv = moves
            .iter()
            .copied()
            .find(|m| match *m {
                Move::Board { to, promote, .. } => promote || pos.piece_at(to).is_some(),
                _ => false,
            })
            .unwrap_or(moves[i * 7 % moves.len()]);
        pos.play_unchecked(mv);
        last = Some(mv);
    }
    (pos, last.expect("at least one move"))
}

/// A position from a game, with promoted pieces (`+Lf`, `+Bm`) and all three hands
/// holding pieces.
const BUSY: &str = "7/SlRlPl2Pf1Sf/Kl1Pl5Gf/6Pf3/7PfKf2/Sl11/1Rl+Lf10/11+Bm/1Pl4Nm4/10/1PmPm2NmPmPmPm/Sm5Rm1/2Km1GmSm1 m 2Bf3GfNf7PfSm4Lm3PmGlLl3Pl - - 62";

fn opts(view: Player, last_move: Option<Move>) -> SvgOptions {
    SvgOptions {
        view,
        last_move,
        ..SvgOptions::default()
    }
}

#[test]
fn every_view_is_well_formed_svg() {
    let (mid, last) = midgame(40);
    for pos in [Position::start(), mid, Position::parse(BUSY).unwrap()] {
        for view in Player::ALL {
            let svg = board_svg(&pos, &opts(view, Some(last)));
            let doc = parse(&svg);
            let root = doc.root_element();
            assert_eq!(root.tag_name().name(), "svg");
            assert_eq!(
                root.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg")
            );
            assert!(root.attribute("viewBox").is_some());
        }
    }
}

#[test]
fn self_contained_nothing_external() {
    let svg = board_svg(&Position::start(), &SvgOptions::default());
    let doc = parse(&svg);
    for n in doc.descendants().filter(Node::is_element) {
        let tag = n.tag_name().name();
        assert!(
            !["script", "image", "foreignObject", "style", "a"].contains(&tag),
            "element <{tag}>"
        );
        for a in n.attributes() {
            assert!(
                !a.name().starts_with("on") && !a.value().contains("url("),
                "attribute {}={}",
                a.name(),
                a.value()
            );
            assert_ne!(a.name(), "href");
        }
    }
}

#[test]
fn draws_all_127_cells_once_with_the_garden_marked() {
    let svg = board_svg(&Position::start(), &SvgOptions::default());
    let doc = parse(&svg);
    let cells = with_class(&doc, "cell");
    assert_eq!(cells.len(), 127);
    assert!(cells.iter().all(|n| n.has_tag_name("polygon")));
    let mut names: Vec<&str> = cells
        .iter()
        .map(|n| n.attribute("data-cell").unwrap())
        .collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 127);
    let garden = with_class(&doc, "garden");
    assert_eq!(garden.len(), 1);
    assert_eq!(garden[0].attribute("data-cell"), Some("7g"));
    // R8: 24 cells per territory.
    for t in ["territory-f", "territory-m", "territory-l"] {
        assert_eq!(with_class(&doc, t).len(), 24, "{t}");
    }
}

#[test]
fn start_position_shows_its_54_pieces_where_they_stand() {
    let pos = Position::start();
    let svg = board_svg(&pos, &SvgOptions::default());
    let doc = parse(&svg);
    let pieces = with_class(&doc, "piece");
    assert_eq!(pieces.len(), 54);
    for n in pieces {
        let cell = Cell::parse(n.attribute("data-cell").unwrap()).unwrap();
        let on_board = pos.piece_at(cell).expect("a piece there").to_string();
        assert_eq!(n.attribute("data-piece"), Some(on_board.as_str()));
    }
}

#[test]
fn pieces_point_the_owners_forward_direction_turned_with_the_view() {
    // R7: forward is board hour 12 for Middle, 4 for Last, 8 for First; a view turns
    // the picture so the viewer's pieces point up.
    let expected = |view: Player, owner: Player| -> u32 {
        let forward = |p: Player| match p {
            Player::Middle => 0,
            Player::Last => 4,
            Player::First => 8,
        };
        (30 * (forward(owner) + 12 - forward(view)) % 360) as u32
    };
    let pos = Position::start();
    for view in Player::ALL {
        let doc_text = board_svg(&pos, &opts(view, None));
        let doc = parse(&doc_text);
        for n in with_class(&doc, "piece") {
            let owner = match n.attribute("data-piece").unwrap().chars().last() {
                Some('f') => Player::First,
                Some('m') => Player::Middle,
                _ => Player::Last,
            };
            let body = n
                .children()
                .rfind(|c| c.has_tag_name("polygon"))
                .expect("a piece outline");
            let rotation = body.attribute("transform").unwrap_or("rotate(0)");
            assert_eq!(
                rotation,
                format!("rotate({})", expected(view, owner)),
                "{owner} seen by {view}"
            );
        }
    }
}

#[test]
fn promoted_pieces_and_hands_are_shown() {
    let pos = Position::parse(BUSY).unwrap();
    let svg = board_svg(&pos, &SvgOptions::default());
    let doc = parse(&svg);
    let promoted: Vec<_> = with_class(&doc, "piece")
        .into_iter()
        .filter(|n| n.attribute("data-piece").unwrap().starts_with('+'))
        .collect();
    assert_eq!(promoted.len(), 2);
    for n in &promoted {
        let shown: String = n
            .descendants()
            .filter(|d| d.is_text() && d.parent().is_some_and(|p| !p.has_tag_name("title")))
            .filter_map(|d| d.text())
            .collect();
        assert!(shown.starts_with('+'), "{shown}");
    }
    for p in Player::ALL {
        let panel = with_class(&doc, &format!("hand-{}", p.letter()));
        assert_eq!(panel.len(), 1);
        for k in sannin::rules::Kind::HAND {
            let n = pos.hand_count(p, k);
            let shown = panel[0].descendants().find(|d| {
                has_class(d, "hand-piece")
                    && d.attribute("data-piece") == Some(&k.letter().to_string())
            });
            match shown {
                None => assert_eq!(n, 0, "{p} {k:?}"),
                Some(d) => assert_eq!(d.attribute("data-count"), Some(n.to_string().as_str())),
            }
        }
    }
}

#[test]
fn last_move_is_highlighted() {
    let highlighted = |pos: &Position, mv: Move| -> Vec<(String, String)> {
        let svg = board_svg(pos, &opts(Player::Middle, Some(mv)));
        let doc = parse(&svg);
        with_class(&doc, "last-move")
            .into_iter()
            .filter_map(|n| {
                Some((
                    n.attribute("class")?.to_string(),
                    n.attribute("data-cell")?.to_string(),
                ))
            })
            .collect()
    };
    let (pos, last) = midgame(1);
    let Move::Board { from, to, .. } = last else {
        panic!("the first move is a board move")
    };
    let marks = highlighted(&pos, last);
    assert!(
        marks.contains(&("last-move from".into(), from.to_string())),
        "{marks:?}"
    );
    assert!(
        marks.contains(&("last-move to".into(), to.to_string())),
        "{marks:?}"
    );

    let drop = Move::parse("P*7g").unwrap();
    let marks = highlighted(&pos, drop);
    assert_eq!(marks, vec![("last-move to drop".into(), "7g".into())]);

    let lit = Move::parse("10m!10k,12l").unwrap();
    let marks = highlighted(&pos, lit);
    assert!(marks.contains(&("last-move king".into(), "10m".into())));
    assert!(marks.contains(&("last-move target".into(), "10k".into())));
    assert!(marks.contains(&("last-move target".into(), "12l".into())));

    let none = board_svg(&pos, &opts(Player::Middle, None));
    assert!(with_class(&parse(&none), "last-move").is_empty());
}

#[test]
fn hostile_names_and_titles_are_escaped() {
    let hostile = "<script>&\"";
    let opts = SvgOptions {
        title: Some(format!("{hostile}'</svg>")),
        names: [
            Some(hostile.to_string()),
            Some("Ctrl\u{1}\u{0}name\u{FFFF}".to_string()),
            Some("]]><!--".to_string()),
        ],
        ..SvgOptions::default()
    };
    let svg = board_svg(&Position::start(), &opts);
    assert!(!svg.contains("<script"));
    let doc = parse(&svg);
    assert!(doc.descendants().all(|n| !n.has_tag_name("script")));
    let shown = texts(&doc);
    assert!(shown.iter().any(|t| t == hostile), "{shown:?}");
    assert!(shown.iter().any(|t| t == &format!("{hostile}'</svg>")));
    assert!(shown.iter().any(|t| t.starts_with("]]><!--")));
    assert!(shown.iter().any(|t| t.starts_with("Ctrl")));
}

#[test]
fn views_differ_and_each_is_deterministic() {
    let (pos, last) = midgame(30);
    let pictures: Vec<String> = Player::ALL
        .iter()
        .map(|&v| board_svg(&pos, &opts(v, Some(last))))
        .collect();
    for (i, &v) in Player::ALL.iter().enumerate() {
        assert_eq!(pictures[i], board_svg(&pos, &opts(v, Some(last))), "{v}");
        for j in 0..i {
            assert_ne!(pictures[i], pictures[j]);
        }
    }
}

#[test]
fn the_viewers_back_row_is_at_the_bottom() {
    // Each seat's king starts mid back row (R10): in its own view it is straight below
    // the Garden, the lowest piece on the board.
    let pos = Position::start();
    for (view, king) in [
        (Player::Middle, "10m"),
        (Player::First, "1d"),
        (Player::Last, "10d"),
    ] {
        let svg = board_svg(&pos, &opts(view, None));
        let doc = parse(&svg);
        let centre = |cell: &str| -> (f64, f64) {
            let n = with_class(&doc, "piece")
                .into_iter()
                .find(|n| n.attribute("data-cell") == Some(cell))
                .unwrap();
            let t = n.attribute("transform").unwrap();
            let inner = t.trim_start_matches("translate(").trim_end_matches(')');
            let (x, y) = inner.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        };
        let (kx, ky) = centre(king);
        for n in with_class(&doc, "piece") {
            let (_, y) = centre(n.attribute("data-cell").unwrap());
            assert!(y <= ky + 0.01, "{view}: {king} is lowest");
        }
        assert!(kx.abs() < 0.01, "{view}: {king} is centred, x = {kx}");
    }
}

#[test]
fn game_state_line_says_who_moves_or_who_won() {
    let svg = board_svg(&Position::start(), &SvgOptions::default());
    let shown = texts(&parse(&svg));
    assert!(shown.iter().any(|t| t == "First"));
    assert!(shown.iter().any(|t| t == "To move: move 1"));

    let over = Position::start()
        .eliminate(Player::Middle, sannin::rules::Elimination::Resigned)
        .and_then(|(p, _)| p.eliminate(Player::Last, sannin::rules::Elimination::Resigned))
        .map(|(p, _)| p)
        .expect("two resignations end the game");
    let svg = board_svg(&over, &SvgOptions::default());
    let shown = texts(&parse(&svg));
    assert!(
        shown.iter().any(|t| t == "Wins: last player standing"),
        "{shown:?}"
    );
}

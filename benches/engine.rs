//! Engine benchmarks: a fixed-depth search from the start and from
//! middle-game positions reached by seeded level-2 play (node counts are
//! reported, so a change that prunes more shows as fewer nodes, not only
//! less time).

use criterion::{criterion_group, criterion_main, Criterion};
use sannin::engine::{search, Level, Limits};
use sannin::rules::Position;
use std::hint::black_box;
use std::time::Duration;

/// Positions after 24 to 40 plies of level-2 play, each from its own seed.
fn midgame_positions() -> Vec<Position> {
    let mut out = Vec::new();
    let mut seed = 1;
    while out.len() < 4 {
        let mut pos = Position::start();
        let plies = 24 + (seed * 7) % 17;
        for ply in 0..plies {
            let Some(r) = search(&pos, &Level::new(2).unwrap().limits(seed * 1000 + ply)) else {
                break;
            };
            pos.play_unchecked(r.best);
        }
        if !pos.is_over() {
            out.push(pos);
        }
        seed += 1;
    }
    out
}

fn depth(d: u32) -> Limits<'static> {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

fn bench_search(c: &mut Criterion) {
    let start = Position::start();
    let nodes = search(&start, &depth(4)).unwrap().nodes;
    eprintln!("search depth 4 from the start: {nodes} nodes");
    let mut g = c.benchmark_group("search");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("start depth 4", |b| {
        b.iter(|| search(black_box(&start), &depth(4)).unwrap().nodes)
    });
    let mids = midgame_positions();
    let total: u64 = mids
        .iter()
        .map(|p| search(p, &depth(3)).unwrap().nodes)
        .sum();
    eprintln!(
        "search depth 3 in {} middle games: {total} nodes",
        mids.len()
    );
    g.bench_function("middle games depth 3", |b| {
        b.iter(|| {
            mids.iter()
                .map(|p| search(black_box(p), &depth(3)).unwrap().nodes)
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);

//! Rules engine benchmarks: perft from the start (node counts asserted, so a generator
//! change that alters the tree cannot pass as a speed-up), and move generation and play
//! on a fixed set of middle-game positions.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sannin::rules::{perft, Move, Position};
use std::hint::black_box;
use std::time::Duration;

/// A small xorshift generator, so the positions are the same on every run without a
/// dependency on `rand`.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x % n as u64) as usize
    }
}

/// Middle-game positions: 20 to 40 pseudo-random legal moves from the start, with a
/// fixed seed. Playouts that end early are skipped.
fn midgame_positions() -> Vec<Position> {
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    while out.len() < 16 {
        let plies = 20 + rng.below(21);
        let mut pos = Position::start();
        for _ in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            pos = pos
                .play(legal[rng.below(legal.len())])
                .expect("a legal move");
        }
        if !pos.is_over() {
            out.push(pos);
        }
    }
    out
}

fn bench_perft(c: &mut Criterion) {
    let start = Position::start();
    let mut g = c.benchmark_group("perft_start");
    g.sample_size(10);
    g.throughput(Throughput::Elements(110_365));
    g.bench_function("depth_3", |b| {
        b.iter(|| {
            let n = perft(black_box(&start), 3);
            assert_eq!(n, 110_365);
            n
        })
    });
    g.throughput(Throughput::Elements(5_657_994));
    g.measurement_time(Duration::from_secs(10));
    g.bench_function("depth_4", |b| {
        b.iter(|| {
            let n = perft(black_box(&start), 4);
            assert_eq!(n, 5_657_994);
            n
        })
    });
    g.finish();
}

fn bench_midgame(c: &mut Criterion) {
    let positions = midgame_positions();
    // One move per position, taken from the middle of its list, for the play benches.
    let moves: Vec<Move> = positions
        .iter()
        .map(|p| {
            let legal = p.legal_moves();
            legal[legal.len() / 2]
        })
        .collect();

    let mut g = c.benchmark_group("midgame");
    g.throughput(Throughput::Elements(positions.len() as u64));
    g.bench_function("legal_moves", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in black_box(&positions) {
                n += p.legal_moves().len();
            }
            n
        })
    });
    g.bench_function("count_legal_moves", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in black_box(&positions) {
                n += p.count_legal_moves();
            }
            n
        })
    });
    g.bench_function("play_checked", |b| {
        b.iter(|| {
            for (p, m) in black_box(&positions).iter().zip(&moves) {
                black_box(p.play(*m).expect("legal"));
            }
        })
    });
    g.bench_function("play_unchecked", |b| {
        b.iter(|| {
            for (p, m) in black_box(&positions).iter().zip(&moves) {
                let mut next = *p;
                next.play_unchecked(*m);
                black_box(next);
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_perft, bench_midgame);
criterion_main!(benches);

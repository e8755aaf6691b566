// A Rust workload for the demangling tests (tests/profrec.sh,
// tests/profheap.sh), built by them with
//   rustc -g -C force-frame-pointers=yes --crate-name main
// A trait method that computes and allocates (<main::Sq as
// main::Shape>::area), a generic function calling it (main::total), std
// calls (Vec, format!, Instant). Runs for the seconds given (default 1).
use std::hint::black_box;
use std::time::{Duration, Instant};

trait Shape {
    fn area(&self) -> f64;
}

struct Sq {
    side: u64,
}

impl Shape for Sq {
    #[inline(never)]
    fn area(&self) -> f64 {
        // allocates on every call: profheap sees the trait method
        let v: Vec<u64> = (0..self.side).map(|i| i * i % 7).collect();
        let mut x = 0u64;
        for _ in 0..200 {
            for &e in v.iter() {
                x = x.wrapping_mul(31).wrapping_add(e);
            }
        }
        black_box(x) as f64 + (self.side * self.side) as f64
    }
}

#[inline(never)]
fn total<T: Shape>(items: &[T]) -> f64 {
    items.iter().map(|s| s.area()).sum()
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let items: Vec<Sq> = (1..=8).map(|i| Sq { side: 64 * i }).collect();
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut sum = 0.0;
    let mut rounds = 0u64;
    while Instant::now() < end {
        sum += total(black_box(&items));
        rounds += 1;
    }
    let line = format!("{} rounds, {}", rounds, sum);
    println!("{}", line.len());
}

// names_rust.rs - the Rust program of the names corpus (built when rustc
// is at hand): generic and closure names in Rust's mangling.
use std::hint::black_box;

#[inline(never)]
fn accumulate<T: Copy + Into<u64>>(v: &[T]) -> u64 {
    v.iter().map(|&x| x.into() * 3).sum()
}

struct Walker {
    steps: u64,
}

impl Walker {
    #[inline(never)]
    fn walk(&mut self, n: u64) -> u64 {
        (0..n).for_each(|i| self.steps += i ^ (self.steps >> 2));
        self.steps
    }
}

fn main() {
    let n = std::env::args().count() as u64;
    let mut w = Walker { steps: 0 };
    let v: Vec<u32> = (0..n as u32).collect();
    black_box(accumulate(&v) + w.walk(n));
}

//! A reference model of the idle-worker queues, and a checker that drives a real
//! queue and the model through the same operations and compares them after every
//! step. Shared by `tests/it/queue_model.rs` (proptest, stable) and the cargo-fuzz
//! targets in `fuzz/` (which include this file by path).

use std::collections::VecDeque;

use antpool::port::{IdleWorker, Instant, WorkerId, WorkerQueue};

/// One step against a queue.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// A worker goes idle at `since` (any value: the "clock" may step backwards).
    Insert {
        id: u16,
        since: u16,
    },
    Detach,
    Refresh {
        deadline: u16,
    },
    Reset,
}

impl Op {
    /// Decodes operations from raw bytes (3 bytes each), for the fuzzers.
    pub fn decode(bytes: &[u8]) -> Vec<Op> {
        bytes
            .chunks_exact(3)
            .map(|c| {
                let arg = u16::from_le_bytes([c[1], c[2]]);
                match c[0] % 8 {
                    0..=3 => Op::Insert {
                        id: arg,
                        since: u16::from(c[0]) << 4 ^ arg,
                    },
                    4 | 5 => Op::Detach,
                    6 => Op::Refresh { deadline: arg },
                    _ => Op::Reset,
                }
            })
            .collect()
    }
}

/// Which end `detach` takes from, and how many fit.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub fifo: bool,
    pub capacity: Option<usize>,
}

/// The model: a plain double-ended list, oldest at the front.
pub struct Model {
    items: VecDeque<IdleWorker>,
    shape: Shape,
}

fn worker(id: u16, since: u16) -> IdleWorker {
    IdleWorker {
        id: WorkerId::from_index(usize::from(id) + 1),
        since: Instant::from_nanos(u64::from(since)),
    }
}

impl Model {
    pub fn new(shape: Shape) -> Self {
        Model {
            items: VecDeque::new(),
            shape,
        }
    }

    fn insert(&mut self, w: IdleWorker) -> Result<(), IdleWorker> {
        if self
            .shape
            .capacity
            .is_some_and(|cap| self.items.len() >= cap)
        {
            return Err(w);
        }
        let mut stored = w;
        if let Some(newest) = self.items.back() {
            stored.since = stored.since.max(newest.since);
        }
        self.items.push_back(stored);
        Ok(())
    }

    fn detach(&mut self) -> Option<IdleWorker> {
        match self.shape.fifo {
            true => self.items.pop_front(),
            false => self.items.pop_back(),
        }
    }

    fn refresh(&mut self, deadline: Instant) -> Vec<IdleWorker> {
        let mut out = Vec::new();
        while self.items.front().is_some_and(|w| w.since <= deadline) {
            out.extend(self.items.pop_front());
        }
        out
    }

    fn reset(&mut self) -> Vec<IdleWorker> {
        self.items.drain(..).collect()
    }
}

/// Runs `ops` on `queue` and on the model, asserting they agree after every step,
/// that stamps never decrease from oldest to newest, and at the end that the
/// queue holds exactly the model's workers in the model's order.
pub fn check<Q: WorkerQueue>(mut queue: Q, shape: Shape, ops: &[Op]) {
    let mut model = Model::new(shape);
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Insert { id, since } => {
                let w = worker(id, since);
                assert_eq!(queue.insert(w), model.insert(w), "step {step}: {op:?}");
            }
            Op::Detach => assert_eq!(queue.detach(), model.detach(), "step {step}: {op:?}"),
            Op::Refresh { deadline } => {
                let deadline = Instant::from_nanos(u64::from(deadline));
                let mut got = Vec::new();
                let n = queue.refresh(deadline, |w| got.push(w));
                let want = model.refresh(deadline);
                assert_eq!(n, got.len(), "step {step}: refresh's count");
                assert_eq!(got, want, "step {step}: {op:?}");
                assert!(got.iter().all(|w| w.since <= deadline));
            }
            Op::Reset => {
                let mut got = Vec::new();
                let n = queue.reset(|w| got.push(w));
                assert_eq!(n, got.len(), "step {step}: reset's count");
                assert_eq!(got, model.reset(), "step {step}: {op:?}");
            }
        }
        assert_eq!(
            queue.len(),
            model.items.len(),
            "step {step}: len after {op:?}"
        );
        assert_eq!(queue.is_empty(), model.items.is_empty());
    }
    let mut rest = Vec::new();
    queue.reset(|w| rest.push(w));
    assert!(
        rest.windows(2).all(|p| p[0].since <= p[1].since),
        "stamps decrease from oldest to newest: {rest:?}"
    );
    assert_eq!(rest, model.reset(), "final contents");
}

/// Every queue in the crate, each with its shape, checked against `ops`.
pub fn check_all(ops: &[Op]) {
    use antpool::{IdleQueue, WorkerRing};
    let lifo = Shape {
        fifo: false,
        capacity: None,
    };
    let fifo8 = Shape {
        fifo: true,
        capacity: Some(8),
    };
    check(IdleQueue::with_capacity(None, false), lifo, ops);
    check(WorkerRing::<8>::new(), fifo8, ops);
    check(
        WorkerRing::<1>::new(),
        Shape {
            fifo: true,
            capacity: Some(1),
        },
        ops,
    );
    check(IdleQueue::with_capacity(Some(8), false), lifo, ops);
    check(IdleQueue::with_capacity(Some(8), true), fifo8, ops);
}

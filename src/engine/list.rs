//! [`TaskList`]: an unbounded, lock-free, multi-producer multi-consumer FIFO that
//! can be *closed* — the spill queue behind the ring, and the whole lane of an
//! unbounded queue.
//!
//! The algorithm is crossbeam's `SegQueue` (crossbeam-queue 0.3, MIT or
//! Apache-2.0, © The Crossbeam Project Developers), with the close that
//! crossbeam-channel's list flavour adds to it: a linked list of blocks of
//! `BLOCK_CAP` slots; a push claims a slot with one compare-and-swap on the
//! tail index and publishes it with one `fetch_or` of the slot's state, and a
//! pop does the same on the head index. The pusher that claims a block's last
//! slot installs the next block; the popper that reads it (or the last reader
//! of a block, through the slots' `READ` and `DESTROY` bits) frees it — or,
//! unlike `SegQueue`, keeps it as one of the list's *spares* (up to
//! `SPARES`), which the next installs take instead of allocating (see
//! [`TaskList::recycle`]).
//!
//! Written here rather than used from `crossbeam-queue` for the close:
//! [`close`](TaskList::close) sets a mark bit in the tail index (its lowest bit,
//! which `SegQueue` leaves unused) by one read-modify-write, and a push fails
//! from then on, because the swap that claims a slot expects an index without
//! the mark; the index moves past a block's end by `fetch_add`, which keeps the
//! mark. So every push claimed its slot before the mark or is handed back — a
//! pool closes its lane on release instead of counting submitters in and out
//! of a push window (`engine/README.md`, handshake 2). And it runs under loom:
//! in the engine's models as it ships, and in its own (`list_loom.rs`) with
//! blocks of three slots and two spares (the list's const parameters), so
//! that a model crosses a block's end in a few pushes.
//!
//! # Spare blocks
//!
//! A queue that keeps moving would allocate a block a lap on the pushers'
//! side and free it on the poppers', through the allocator's shared state.
//! The rules that keep reuse sound: the thread that would have freed a block
//! (its last reader) puts it into an empty spare cell by a `Release` CAS, or
//! frees it if every cell is full; an installer empties a cell by an `Acquire`
//! swap, so every read of the old block happens before it, resets `next` and
//! the slots' states (plain stores, published with the block by the
//! install's `Release` stores) and only then links it. A cell is read by a
//! load first, so a growing queue (no spare) pays no read-modify-write. No
//! thread touches a block it does not own through a won CAS on an index, so a
//! reused address is no ABA: the indices never repeat (a `usize` wrap aside,
//! as for `SegQueue`).
//!
//! loom (`list_loom.rs`): `a_block_is_reused_only_after_its_last_reader`
//! (fails if a block is given up before its last reader, or without the
//! `Release`/`Acquire` pair), `a_block_given_up_is_reused_for_an_install` and
//! `a_reused_block_is_read_while_it_is_filled` (fail without the reset of the
//! slots' states or of `next`), `pushers_and_a_popper_across_a_block_end`,
//! `a_push_racing_close_lands_before_it_or_comes_back`.

use alloc::boxed::Box;
use core::mem::MaybeUninit;
use core::ptr;

use crate::sync::{AtomicPtr, AtomicUsize, Backoff, Cell, Ordering, ZEROED_ATOMICS, fence};

use super::padded::Padded;
use super::timed::{Stamp, StampAt, Stamped};

// A slot's state bits: the value is written; it has been read; the block is
// being destroyed and the slot's reader must finish that.
const WRITE: usize = 1;
const READ: usize = 2;
const DESTROY: usize = 4;

/// Slots per block (a list's `BLOCK` parameter, by default).
pub(super) const BLOCK_CAP: usize = 31;
/// Blocks given up by their readers that the list keeps for its next
/// installs (a list's `SPARES` parameter, by default): one did not cover a
/// queue whose length moves by a few blocks (what four saved:
/// `BENCHMARKS.md`, "What the engine's constants rest on").
const SPARE_BLOCKS: usize = 4;
/// The low index bits kept for flags: `HAS_NEXT` in the head, `MARK` in the tail.
const SHIFT: usize = 1;
/// Head: the head block is not the last one.
const HAS_NEXT: usize = 1;
/// Tail: the list is closed.
const MARK: usize = 1;

/// One slot: a value and its state, and the value's admission time (its
/// [`Stamp`]: written and read with it, under the same `WRITE` bit).
struct Entry<T> {
    value: Cell<MaybeUninit<T>>,
    state: AtomicUsize,
    at: Cell<MaybeUninit<Stamp>>,
}

impl<T> Entry<T> {
    fn new() -> Self {
        Entry {
            value: Cell::new(MaybeUninit::uninit()),
            state: AtomicUsize::new(0),
            at: Cell::new(MaybeUninit::uninit()),
        }
    }

    /// Waits until the slot's pusher has written it (it claimed the slot
    /// before the popper did, and is a few instructions from done).
    fn wait_write(&self) {
        let mut backoff = Backoff::new();
        while self.state.load(Ordering::Acquire) & WRITE == 0 {
            backoff.snooze();
        }
    }
}

/// A block of `BLOCK` slots, linked to the next.
struct Block<T, const BLOCK: usize> {
    next: AtomicPtr<Block<T, BLOCK>>,
    slots: [Entry<T>; BLOCK],
}

impl<T, const BLOCK: usize> Block<T, BLOCK> {
    /// A block of empty slots, allocated zeroed on the heap, never built on the
    /// stack: a block of large tasks would overflow a small stack (crossbeam
    /// fixed the same in `SegQueue`, its #1146). Under loom, whose atomics track state
    /// zeroed memory would not set up ([`ZEROED_ATOMICS`]), built field by
    /// field.
    fn new() -> Box<Self> {
        if !ZEROED_ATOMICS {
            return Box::new(Block {
                next: AtomicPtr::new(ptr::null_mut()),
                slots: core::array::from_fn(|_| Entry::new()),
            });
        }
        let layout = alloc::alloc::Layout::new::<Self>();
        // SAFETY: the layout is not zero-sized (the block has an `AtomicPtr`).
        let raw = unsafe { alloc::alloc::alloc_zeroed(layout) };
        if raw.is_null() {
            alloc::alloc::handle_alloc_error(layout);
        }
        // SAFETY: zeroed bytes are a valid block: a null `next`, every slot's
        // state 0 (the atomics are plain integers in cells: `ZEROED_ATOMICS`)
        // and its value and stamp `MaybeUninit`s, valid whatever their bytes.
        // The memory was allocated with this layout by the global allocator,
        // as `Box` needs.
        unsafe { Box::from_raw(raw.cast()) }
    }

    /// Waits until the next block is linked (its installer claimed this
    /// block's last slot, and links it right after).
    fn wait_next(&self) -> *mut Block<T, BLOCK> {
        let mut backoff = Backoff::new();
        loop {
            let next = self.next.load(Ordering::Acquire);
            if !next.is_null() {
                return next;
            }
            backoff.snooze();
        }
    }

    /// Makes a block taken from the spares as good as a new one: no next
    /// block, every slot's state 0 (its value is uninitialised either way).
    /// Its owner alone sees it until it publishes it by a release store.
    fn reset(&self) {
        self.next.store(ptr::null_mut(), Ordering::Relaxed);
        for slot in &self.slots {
            slot.state.store(0, Ordering::Relaxed);
        }
    }
}

impl<T, const BLOCK: usize, const SPARES: usize> TaskList<T, BLOCK, SPARES> {
    /// Indices per block: one more than its slots (the last index of each
    /// lap stands for "moving to the next block"). A power of two.
    const LAP: usize = {
        assert!(
            (BLOCK + 1).is_power_of_two(),
            "a block's slots and one: a power of two"
        );
        BLOCK + 1
    };

    /// A block for an install: a spare if there is one (reset), else a new
    /// one.
    fn new_block(&self) -> Box<Block<T, BLOCK>> {
        let mut spare = ptr::null_mut();
        for cell in &self.spare {
            // A load first: when there is no spare (a queue that grows), the
            // pushers do not take the line from the poppers for nothing.
            if !cell.load(Ordering::Relaxed).is_null() {
                spare = cell.swap(ptr::null_mut(), Ordering::Acquire);
                if !spare.is_null() {
                    break;
                }
            }
        }
        if spare.is_null() {
            return Block::new();
        }
        // SAFETY: the spare was a block made by `Box::into_raw` whose every
        // slot had been read, given up by `recycle` (Release; our swap is
        // Acquire): nobody else holds it, and the swap made it ours alone.
        let block = unsafe { Box::from_raw(spare) };
        block.reset();
        block
    }

    /// A block a pusher made for an install that another pusher did (or that
    /// a close stopped) goes back to the spares, not to the allocator.
    fn give_back(&self, block: Option<Box<Block<T, BLOCK>>>) {
        if let Some(block) = block {
            // SAFETY: never shared: no slot of it holds a value.
            unsafe { self.recycle(Box::into_raw(block)) };
        }
    }

    /// Gives up a block no slot of which holds a value: kept in an empty
    /// spare cell if there is one (the steady state of a queue that keeps
    /// moving then needs no allocation: a block a lap, allocated by the
    /// pushers and freed by the poppers, made the two sides meet in the
    /// allocator's lock), else freed.
    ///
    /// # Safety
    ///
    /// `block` was made by `Box::into_raw`, every one of its slots has been
    /// read (or none written), and nobody touches it any more.
    unsafe fn recycle(&self, block: *mut Block<T, BLOCK>) {
        for cell in &self.spare {
            if cell.load(Ordering::Relaxed).is_null()
                && cell
                    .compare_exchange(ptr::null_mut(), block, Ordering::Release, Ordering::Relaxed)
                    .is_ok()
            {
                return;
            }
        }
        // SAFETY: per the contract.
        drop(unsafe { Box::from_raw(block) });
    }

    /// Gives up the block once every slot from `start` on has been read: a
    /// slot still being read gets `DESTROY`, and its reader goes on then.
    ///
    /// # Safety
    ///
    /// `this` is a block every slot of which below `start` has been read, and
    /// whose last slot's reader (or the reader of slot `start - 1`, which saw
    /// `DESTROY`) calls this, once.
    unsafe fn destroy(&self, this: *mut Block<T, BLOCK>, start: usize) {
        // The last slot need not be marked: its reader started the destruction.
        for i in start..BLOCK - 1 {
            // SAFETY: the block is live until this function frees it (per the
            // contract, nobody else frees it meanwhile).
            let slot = unsafe { &(*this).slots[i] };
            if slot.state.load(Ordering::Acquire) & READ == 0
                && slot.state.fetch_or(DESTROY, Ordering::AcqRel) & READ == 0
            {
                // Still being read: its reader finishes the destruction.
                return;
            }
        }
        // SAFETY: every slot has been read and nobody else holds the block:
        // it was made by `Box::into_raw` in `push`.
        unsafe { self.recycle(this) };
    }
}

/// An index and the block it falls in.
struct Position<T, const BLOCK: usize> {
    index: AtomicUsize,
    block: AtomicPtr<Block<T, BLOCK>>,
}

impl<T, const BLOCK: usize> Position<T, BLOCK> {
    maybe_const_fn! {
        fn new() -> Self {
            Position {
                index: AtomicUsize::new(0),
                block: AtomicPtr::new(ptr::null_mut()),
            }
        }
    }
}

/// An unbounded lock-free FIFO that can be closed (see the module docs), of
/// blocks of `BLOCK` slots, keeping up to `SPARES` blocks for reuse.
pub(crate) struct TaskList<T, const BLOCK: usize = BLOCK_CAP, const SPARES: usize = SPARE_BLOCKS> {
    head: Padded<Position<T, BLOCK>>,
    tail: Padded<Position<T, BLOCK>>,
    /// Blocks given up by their last readers, kept for the next installs
    /// (each cell a block or null). Touched about once a block, by a popper
    /// and then a pusher.
    spare: [AtomicPtr<Block<T, BLOCK>>; SPARES],
    // `fn() -> T`: the list is `Send`/`Sync` as `T: Send` allows (below).
    _values: core::marker::PhantomData<fn() -> T>,
}

// SAFETY: values move from the thread that pushes them to the one that pops
// them; the list never shares a `&T`.
unsafe impl<T: Send, const BLOCK: usize, const SPARES: usize> Send for TaskList<T, BLOCK, SPARES> {}
// SAFETY: as for `Send`: each slot has one writer (its claimer through the
// tail) and then one reader (its claimer through the head), ordered by the
// slot's state.
unsafe impl<T: Send, const BLOCK: usize, const SPARES: usize> Sync for TaskList<T, BLOCK, SPARES> {}

impl<T, const BLOCK: usize, const SPARES: usize> TaskList<T, BLOCK, SPARES> {
    maybe_const_fn! {
        /// An empty, open list. (It allocates its first block on the first push.)
        pub(crate) fn new() -> Self {
            TaskList {
                head: Padded::new(Position::new()),
                tail: Padded::new(Position::new()),
                spare: crate::sync::null_ptrs(),
                _values: core::marker::PhantomData,
            }
        }
    }

    /// The position of index `index` (shifted) in the list's order of slots
    /// since it was made: what sampling goes by.
    #[inline]
    fn seq(index: usize) -> usize {
        (index / Self::LAP)
            .wrapping_mul(BLOCK)
            .wrapping_add(index % Self::LAP)
    }

    /// Appends `value`, or hands it back if the list is closed. With the
    /// stamp `stamp_at` gives for the position of the slot it is about to
    /// claim and the stamp of its last try, asked before each try (as
    /// `TaskRing::push` does).
    pub(crate) fn push(&self, value: T, stamp_at: impl StampAt) -> Result<(), T> {
        let mut at = Stamp::NONE;
        let mut backoff = Backoff::new();
        let mut tail = self.tail.index.load(Ordering::Acquire);
        let mut block = self.tail.block.load(Ordering::Acquire);
        let mut next_block = None;
        loop {
            if tail & MARK != 0 {
                self.give_back(next_block);
                return Err(value);
            }
            let offset = (tail >> SHIFT) % Self::LAP;
            if offset == BLOCK {
                // Another pusher is installing the next block: wait for it.
                backoff.snooze();
                tail = self.tail.index.load(Ordering::Acquire);
                block = self.tail.block.load(Ordering::Acquire);
                continue;
            }
            // About to take the block's last slot: make its successor first, so
            // that the others wait for the install as briefly as can be.
            if offset + 1 == BLOCK && next_block.is_none() {
                next_block = Some(self.new_block());
            }
            if block.is_null() {
                // The first push: install the first block.
                let new = Box::into_raw(self.new_block());
                if self
                    .tail
                    .block
                    .compare_exchange(block, new, Ordering::Release, Ordering::Relaxed)
                    .is_ok()
                {
                    self.head.block.store(new, Ordering::Release);
                    block = new;
                } else {
                    // SAFETY: `new` came from `Box::into_raw` just above and
                    // was never shared (the swap failed).
                    next_block = Some(unsafe { Box::from_raw(new) });
                    tail = self.tail.index.load(Ordering::Acquire);
                    block = self.tail.block.load(Ordering::Acquire);
                    continue;
                }
            }
            let new_tail = tail.wrapping_add(1 << SHIFT);
            at = stamp_at(Self::seq(tail >> SHIFT), at);
            match self.tail.index.compare_exchange_weak(
                tail,
                new_tail,
                Ordering::SeqCst,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if offset + 1 == BLOCK {
                        // We took the last slot: install the next block. (The
                        // index moves on by `fetch_add`, which keeps a mark a
                        // `close` set meanwhile.)
                        let Some(next) = next_block.take() else {
                            unreachable!(
                                "antpool: the next block is made before the last slot is claimed"
                            );
                        };
                        let next = Box::into_raw(next);
                        self.tail.block.store(next, Ordering::Release);
                        self.tail.index.fetch_add(1 << SHIFT, Ordering::Release);
                        // SAFETY: `block` is live: its last slot (ours) is not
                        // read yet, and a block is freed only after that.
                        unsafe { (*block).next.store(next, Ordering::Release) };
                    }
                    // SAFETY: as above, `block` is live until our slot is read;
                    // winning the swap made us the slot's only writer, and its
                    // reader waits for `WRITE` before it reads.
                    let slot = unsafe { &(*block).slots[offset] };
                    // SAFETY: the slot is ours alone until `WRITE` is set.
                    slot.value.with_mut(|cell| unsafe { (*cell).write(value) });
                    // SAFETY: as for the value.
                    slot.at.with_mut(|cell| unsafe { (*cell).write(at) });
                    slot.state.fetch_or(WRITE, Ordering::Release);
                    // Made for an install that another pusher did (`None` if
                    // we installed it).
                    self.give_back(next_block);
                    return Ok(());
                }
                Err(now) => {
                    tail = now;
                    block = self.tail.block.load(Ordering::Acquire);
                    backoff.spin();
                }
            }
        }
    }

    /// Takes the oldest value with its stamp, or `None` if the list is empty. A slot claimed by a pusher and not yet written is
    /// waited for (as `SegQueue` does).
    pub(crate) fn pop(&self) -> Option<Stamped<T>> {
        let mut backoff = Backoff::new();
        let mut head = self.head.index.load(Ordering::Acquire);
        let mut block = self.head.block.load(Ordering::Acquire);
        loop {
            let offset = (head >> SHIFT) % Self::LAP;
            if offset == BLOCK {
                // Another popper is moving to the next block: wait for it.
                backoff.snooze();
                head = self.head.index.load(Ordering::Acquire);
                block = self.head.block.load(Ordering::Acquire);
                continue;
            }
            let mut new_head = head.wrapping_add(1 << SHIFT);
            if new_head & HAS_NEXT == 0 {
                fence(Ordering::SeqCst);
                let tail = self.tail.index.load(Ordering::Relaxed);
                if head >> SHIFT == tail >> SHIFT {
                    return None;
                }
                // Head and tail in different blocks: the head block has a next.
                if (head >> SHIFT) / Self::LAP != (tail >> SHIFT) / Self::LAP {
                    new_head |= HAS_NEXT;
                }
            }
            if block.is_null() {
                // The first push is installing the first block.
                backoff.snooze();
                head = self.head.index.load(Ordering::Acquire);
                block = self.head.block.load(Ordering::Acquire);
                continue;
            }
            match self.head.index.compare_exchange_weak(
                head,
                new_head,
                Ordering::SeqCst,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    if offset + 1 == BLOCK {
                        // We took the block's last slot: move the head on.
                        // SAFETY: `block` is live until its last slot (ours)
                        // is read; its pusher links the next block.
                        let next = unsafe { (*block).wait_next() };
                        let mut next_index = (new_head & !HAS_NEXT).wrapping_add(1 << SHIFT);
                        // SAFETY: `next` was linked, and is freed only after
                        // its slots are read, which needs the head moved here.
                        if !unsafe { (*next).next.load(Ordering::Relaxed) }.is_null() {
                            next_index |= HAS_NEXT;
                        }
                        self.head.block.store(next, Ordering::Release);
                        self.head.index.store(next_index, Ordering::Release);
                    }
                    // SAFETY: `block` is live until our slot is read (below).
                    let slot = unsafe { &(*block).slots[offset] };
                    slot.wait_write();
                    // SAFETY: winning the swap made us the slot's only reader,
                    // and `WRITE` (Acquire) says its value is there.
                    let value = slot
                        .value
                        .with_mut(|cell| unsafe { (*cell).assume_init_read() });
                    // SAFETY: as for the value (written with it, before `WRITE`).
                    let at = slot
                        .at
                        .with_mut(|cell| unsafe { (*cell).assume_init_read() });
                    if offset + 1 == BLOCK {
                        // SAFETY: the last slot is read: destruction starts here.
                        unsafe { self.destroy(block, 0) };
                    } else if slot.state.fetch_or(READ, Ordering::AcqRel) & DESTROY != 0 {
                        // SAFETY: the destroyer stopped at our slot, which is
                        // read now: we go on from it (found read, passed).
                        unsafe { self.destroy(block, offset) };
                    }
                    return Some((value, at));
                }
                Err(now) => {
                    head = now;
                    block = self.head.block.load(Ordering::Acquire);
                    backoff.spin();
                }
            }
        }
    }

    /// Whether the list holds no value and no claimed slot. After a `SeqCst`
    /// fence it is a handshake's read (`Transport::has_tasks`); after the
    /// reader synchronized with a `close`, it counts every slot ever claimed.
    pub(crate) fn is_empty(&self) -> bool {
        let head = self.head.index.load(Ordering::SeqCst);
        let tail = self.tail.index.load(Ordering::SeqCst);
        head >> SHIFT == tail >> SHIFT
    }

    /// How many values the list holds (exact when nothing moves).
    pub(crate) fn len(&self) -> usize {
        loop {
            let mut tail = self.tail.index.load(Ordering::SeqCst);
            let mut head = self.head.index.load(Ordering::SeqCst);
            if self.tail.index.load(Ordering::SeqCst) != tail {
                continue;
            }
            tail &= !((1 << SHIFT) - 1);
            head &= !((1 << SHIFT) - 1);
            // An index on a block's end (a pusher or popper moving on to the
            // next block) is left there, not moved to the next block's start
            // as in `SegQueue::len`: the move would change `tail - head` and
            // `tail / LAP` below by one each, which cancel.
            // Rotate both so that the head falls in the first block.
            let lap = (head >> SHIFT) / Self::LAP;
            tail = tail.wrapping_sub((lap * Self::LAP) << SHIFT);
            head = head.wrapping_sub((lap * Self::LAP) << SHIFT);
            tail >>= SHIFT;
            head >>= SHIFT;
            // The difference, less one index per block end between them.
            return tail - head - tail / Self::LAP;
        }
    }

    /// Closes the list: every push from now on fails. The mark is set by a
    /// read-modify-write, so a later read of the tail index by whoever
    /// synchronizes with the closer counts every slot claimed before.
    pub(crate) fn close(&self) {
        self.tail.index.fetch_or(MARK, Ordering::SeqCst);
    }

    /// How many blocks the list keeps as spares (for the unit tests).
    #[cfg(all(test, not(antpool_loom)))]
    pub(super) fn spares(&self) -> usize {
        self.spare
            .iter()
            .filter(|cell| !cell.load(Ordering::Relaxed).is_null())
            .count()
    }

    /// Opens a closed list again.
    pub(crate) fn reopen(&self) {
        self.tail.index.fetch_and(!MARK, Ordering::SeqCst);
    }
}

impl<T, const BLOCK: usize, const SPARES: usize> Drop for TaskList<T, BLOCK, SPARES> {
    fn drop(&mut self) {
        // `&mut self`: nobody else touches the list, so plain loads will do.
        let mut head = self.head.index.load(Ordering::Relaxed) & !((1 << SHIFT) - 1);
        let tail = self.tail.index.load(Ordering::Relaxed) & !((1 << SHIFT) - 1);
        let mut block = self.head.block.load(Ordering::Relaxed);
        while head != tail {
            let offset = (head >> SHIFT) % Self::LAP;
            if offset < BLOCK {
                // SAFETY: every slot from head to tail was written and never
                // read (no push or pop is in progress: `&mut self`).
                unsafe {
                    (*block).slots[offset]
                        .value
                        .with_mut(|cell| (*cell).assume_init_drop());
                }
            } else {
                // SAFETY: a block whose slots are all dropped, reached through
                // the links, made by `Box::into_raw`; nobody else holds it.
                let next = unsafe { (*block).next.load(Ordering::Relaxed) };
                // SAFETY: as just said.
                drop(unsafe { Box::from_raw(block) });
                block = next;
            }
            head = head.wrapping_add(1 << SHIFT);
        }
        if !block.is_null() {
            // SAFETY: the last block, as above.
            drop(unsafe { Box::from_raw(block) });
        }
        for cell in &self.spare {
            let spare = cell.load(Ordering::Relaxed);
            if !spare.is_null() {
                // SAFETY: a spare, given up by `recycle`: nobody else holds it.
                drop(unsafe { Box::from_raw(spare) });
            }
        }
    }
}

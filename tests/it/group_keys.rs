//! Ids that say which: a group task's `TaskId::ordinal` is its place in
//! spawn order (refused and withdrawn spawns take no number; the count never
//! restarts within a group), and a keyed group gives each task's key back
//! with its result in every outcome — value, panic, cancel — and with a
//! refused closure; no key is lost or kept after the group.

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use antpool::{Pool, TaskGroup, TaskId};
use common::poll::{counting_waker, join_line};
use common::{Gate, held_pool, occupy};

#[test]
fn group_ids_ordinal_is_the_spawn_index() {
    let pool = Pool::new(3).unwrap();
    let inputs: Vec<u64> = (0..20).map(|n| n * 7 % 11).collect();
    let mut group = pool.group::<u64>();
    let ids: Vec<TaskId> = inputs
        .iter()
        .map(|&n| group.spawn(move || n * n).unwrap())
        .collect();
    let ordinals: Vec<u64> = ids.iter().map(|id| id.ordinal()).collect();
    assert_eq!(
        ordinals,
        (0..20).collect::<Vec<u64>>(),
        "the first spawn is 0"
    );
    // Results map back to their input by the ordinal alone: no map kept.
    let mut seen = HashSet::new();
    while let Some((id, result)) = group.join_next_with_id() {
        let index = usize::try_from(id.ordinal()).unwrap();
        assert!(seen.insert(index));
        assert_eq!(result.unwrap(), inputs[index] * inputs[index]);
    }
    assert_eq!(seen.len(), inputs.len());
}

#[test]
fn group_ids_ordinal_skips_refused_and_withdrawn_spawns_and_never_restarts() {
    let (pool, gate) = held_pool(Pool::builder().max_queued_tasks(1));
    let mut group = pool.group::<u32>();
    assert_eq!(group.try_spawn(|| 0).unwrap().ordinal(), 0); // queued
    // The queue is full: refused, no number taken.
    assert!(group.try_spawn(|| 1).unwrap_err().is_overload());
    let (waker, _) = counting_waker();
    // An async spawn that waits in the line and is dropped: withdrawn.
    let mut spawn = group.spawn_async(|| 2);
    join_line(&mut spawn, &waker, &pool);
    drop(spawn);
    // And one never polled.
    drop(group.spawn_async(|| 3));
    gate.open();
    assert_eq!(group.spawn(|| 4).unwrap().ordinal(), 1, "no gap");
    let mut joined: Vec<u64> = Vec::new();
    while let Some((id, _)) = group.join_next_with_id() {
        joined.push(id.ordinal());
    }
    joined.sort_unstable();
    assert_eq!(joined, [0, 1]);

    // The count goes on through joins, abort_all and detach_all: an id is
    // never used twice in one group.
    assert_eq!(group.spawn(|| 5).unwrap().ordinal(), 2);
    group.abort_all();
    assert_eq!(group.spawn(|| 6).unwrap().ordinal(), 3);
    group.detach_all();
    assert_eq!(group.spawn(|| 7).unwrap().ordinal(), 4);
    let released = group.join_next_with_id().unwrap().0;
    assert_eq!(released.ordinal(), 4);
    pool.release();
    assert!(group.spawn(|| 8).is_err());
    // A new group starts at 0.
    let pool = Pool::new(1).unwrap();
    assert_eq!(pool.group::<()>().spawn(|| ()).unwrap().ordinal(), 0);
}

#[test]
fn group_ids_ordinal_of_async_spawns() {
    let pool = Pool::new(2).unwrap();
    let mut group = pool.group::<u32>();
    let ordinals = futures_executor::block_on(async {
        let mut ordinals = Vec::new();
        for n in 0..4 {
            ordinals.push(group.spawn_async(move || n).await.unwrap().ordinal());
        }
        ordinals
    });
    assert_eq!(ordinals, [0, 1, 2, 3]);
    pool.release();
    let err = futures_executor::block_on(group.spawn_async(|| 9)).unwrap_err();
    assert!(err.is_closed());
    assert_eq!(group.join_all().len(), 4);
}

#[test]
fn group_keys_come_back_with_a_value_a_panic_and_a_cancel() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(8)
        .build()
        .unwrap();
    let mut group = pool.group::<u32>().keyed::<String>();
    group.spawn_keyed("value".into(), || 1).unwrap();
    group
        .spawn_keyed("panic".into(), || panic!("boom"))
        .unwrap();
    // Everything before is joined once the worker is free again.
    let mut outcomes = BTreeMap::new();
    for _ in 0..2 {
        let (key, result) = group.join_next_keyed().unwrap();
        outcomes.insert(key, result.map_err(|e| e.is_panic()));
    }
    let gate = occupy(&pool, 1);
    let id = group.spawn_keyed("cancelled".into(), || 3).unwrap(); // queued
    group.abort_all();
    let (key, result) = group.join_next_keyed().unwrap();
    assert!(result.as_ref().unwrap_err().is_cancelled());
    assert_eq!(id.ordinal(), 2);
    outcomes.insert(key, result.map_err(|e| e.is_panic()));
    gate.open();
    assert!(group.join_next_keyed().is_none());
    assert_eq!(
        outcomes,
        BTreeMap::from([
            ("value".to_string(), Ok(1)),
            ("panic".to_string(), Err(true)),
            ("cancelled".to_string(), Err(false)),
        ])
    );
}

#[test]
fn group_keys_come_back_under_cancel_on_error() {
    // One busy worker and a queue: the tasks run in spawn order once it is
    // free, so the failure comes first and cancels the rest.
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(8)
        .build()
        .unwrap();
    let mut group = pool
        .group::<Result<u32, String>>()
        .cancel_on_error()
        .keyed::<usize>();
    let gate = occupy(&pool, 1);
    group.spawn_keyed(0, || Err("bad".into())).unwrap();
    for key in 1..4u32 {
        group.spawn_keyed(key as usize, move || Ok(key)).unwrap();
    }
    gate.open();
    let mut keys = Vec::new();
    let mut cancelled = 0;
    while let Some((key, result)) = group.join_next_keyed() {
        match result {
            Ok(Err(e)) => assert_eq!((key, e.as_str()), (0, "bad")),
            Ok(Ok(value)) => panic!("key {key} ran after the failure: {value}"),
            Err(e) => {
                assert!(e.is_cancelled());
                cancelled += 1;
            }
        }
        keys.push(key);
    }
    keys.sort_unstable();
    assert_eq!(keys, [0, 1, 2, 3]);
    assert_eq!(cancelled, 3);
}

#[test]
fn group_keys_come_back_with_a_refused_closure() {
    let (pool, gate) = held_pool(Pool::builder().nonblocking(true));
    let mut group: TaskGroup<u32, Vec<u8>> = pool.group().keyed();
    let err = group.spawn_keyed(vec![1, 2], || 7).unwrap_err();
    assert!(err.is_overload());
    let (key, f) = err.into_closure();
    assert_eq!((key, f()), (vec![1, 2], 7));
    assert!(group.is_empty(), "the group is unchanged");
    gate.open();
    pool.wait_idle();
    // Refused spawns took no number.
    assert_eq!(group.spawn_keyed(vec![3], || 8).unwrap().ordinal(), 0);
    assert_eq!(
        group.join_next_keyed().map(|(k, r)| (k, r.unwrap())),
        Some((vec![3], 8))
    );
}

#[test]
fn group_keys_are_dropped_with_the_group_and_never_kept() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(8)
        .build()
        .unwrap();
    let key = Arc::new(());
    let gate = occupy(&pool, 1);
    let mut group = pool.group::<()>().keyed::<Arc<()>>();
    for _ in 0..4 {
        group.spawn_keyed(key.clone(), || ()).unwrap();
    }
    assert_eq!(Arc::strong_count(&key), 5);
    let (joined, result) = {
        group.abort_all();
        group.join_next_keyed().unwrap()
    };
    assert!(result.unwrap_err().is_cancelled());
    drop(joined);
    assert_eq!(Arc::strong_count(&key), 4);
    drop(group); // three not joined: their keys go with the group
    assert_eq!(Arc::strong_count(&key), 1);
    gate.open();
}

#[test]
#[should_panic(expected = "make it keyed before its first spawn")]
fn group_keyed_on_a_group_with_tasks_panics() {
    let pool = Pool::new(1).unwrap();
    let mut group = pool.group::<u8>();
    group.spawn(|| 1).unwrap();
    let _ = group.keyed::<u32>();
}

#[test]
fn group_keyed_keeps_the_cancel_token_and_the_count() {
    let pool = Pool::builder()
        .capacity(1)
        .max_queued_tasks(4)
        .build()
        .unwrap();
    let mut group = pool.group::<u8>();
    group.spawn(|| 1).unwrap();
    assert_eq!(group.join_next().unwrap().unwrap(), 1);
    let token = group.cancel_token();
    let mut group = group.keyed::<&str>();
    let gate: Gate = occupy(&pool, 1);
    assert_eq!(group.spawn_keyed("queued", || 2).unwrap().ordinal(), 1);
    token.cancel(); // the token taken before still cancels this group's tasks
    let (key, result) = group.join_next_keyed().unwrap();
    assert_eq!(key, "queued");
    assert!(result.unwrap_err().is_cancelled());
    gate.open();
}

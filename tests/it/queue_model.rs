//! The idle queues against a reference model (the same model the fuzzers use):
//! random operation sequences, including clocks that step backwards.

use crate::model;

use model::Op;
use proptest::prelude::*;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<u16>(), 0..64u16).prop_map(|(id, since)| Op::Insert { id, since }),
        2 => Just(Op::Detach),
        1 => (0..64u16).prop_map(|deadline| Op::Refresh { deadline }),
        1 => Just(Op::Reset),
    ]
}

/// 2 000 cases, or `PROPTEST_CASES` (CI sets a few for Miri).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn every_queue_behaves_like_the_model(ops in prop::collection::vec(op(), 0..200)) {
        model::check_all(&ops);
    }
}

#[test]
fn decoded_fuzz_inputs_run_through_the_same_checker() {
    // What the fuzz targets do with their bytes, on a few fixed inputs.
    for bytes in [
        &b""[..],
        &[0, 1, 0, 4, 0, 0, 6, 9, 0][..],
        &[7; 30][..],
        &[3, 255, 255, 2, 0, 0, 6, 255, 255][..],
    ] {
        model::check_all(&Op::decode(bytes));
    }
}

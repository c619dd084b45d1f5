//! The cases' inputs as the harness reads them.

use crate::corpus::Corpus;
use crate::recording::case_store::case_input;

/// The cases' inputs as the harness reads them, split by visibility: the
/// visible cases' inputs go to every worker at start; the hidden cases'
/// inputs only to a submission's supervisor once all its visible cases are
/// answered (see `worker::Worker::record`), so no visible result can carry a
/// hidden input. The harness runs the visible cases first, then the hidden
/// ones, each in corpus order: `order[k]` is the corpus index of the k-th.
pub(crate) struct Inputs {
    /// The visible cases' inputs, a JSON array, as the init line carries them.
    pub visible: Box<serde_json::value::RawValue>,
    pub hidden: String,
    /// Each hidden case's input (JSON text), in `order`'s order: a subset's
    /// hidden inputs are joined from these.
    pub hidden_each: Vec<String>,
    /// How many cases are visible (the first `visible_count` of `order`).
    pub visible_count: usize,
    pub order: Vec<usize>,
    /// `position[i]`: where corpus case `i` stands in `order`.
    pub position: Vec<usize>,
}

pub(crate) fn case_inputs(corpus: &Corpus) -> Inputs {
    use crate::corpus::Visibility;
    let one = |i: usize| case_input(&corpus.cases[i]);
    let (visible, hidden): (Vec<usize>, Vec<usize>) =
        (0..corpus.cases.len()).partition(|&i| corpus.cases[i].visibility == Visibility::Visible);
    let visible_each: Vec<String> = visible.iter().map(|&i| one(i)).collect();
    let hidden_each: Vec<String> = hidden.iter().map(|&i| one(i)).collect();
    let order: Vec<usize> = visible.iter().chain(&hidden).copied().collect();
    let mut position = vec![0; order.len()];
    for (k, &i) in order.iter().enumerate() {
        position[i] = k;
    }
    Inputs {
        visible: serde_json::value::RawValue::from_string(format!("[{}]", visible_each.join(",")))
            .expect("case inputs are JSON"),
        hidden: format!("[{}]", hidden_each.join(",")),
        hidden_each,
        visible_count: visible.len(),
        order,
        position,
    }
}

//! The cases' inputs as the harness reads them.

use crate::corpus::Corpus;

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

impl Inputs {
    /// `corpus`'s inputs split, from `each`: every case's input (JSON
    /// text, see [`crate::recording::case_store::CaseInputs`]).
    pub(crate) fn of(corpus: &Corpus, each: &[String]) -> Inputs {
        use crate::corpus::Visibility;
        let (visible, hidden): (Vec<usize>, Vec<usize>) = (0..corpus.cases.len())
            .partition(|&i| corpus.cases[i].visibility == Visibility::Visible);
        let joined = |which: &[usize]| {
            let mut out =
                String::with_capacity(2 + which.iter().map(|&i| each[i].len() + 1).sum::<usize>());
            out.push('[');
            for (n, &i) in which.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                out.push_str(&each[i]);
            }
            out.push(']');
            out
        };
        let hidden_each: Vec<String> = hidden.iter().map(|&i| each[i].clone()).collect();
        let order: Vec<usize> = visible.iter().chain(&hidden).copied().collect();
        let mut position = vec![0; order.len()];
        for (k, &i) in order.iter().enumerate() {
            position[i] = k;
        }
        Inputs {
            visible: serde_json::value::RawValue::from_string(joined(&visible))
                .expect("case inputs are JSON"),
            hidden: joined(&hidden),
            hidden_each,
            visible_count: visible.len(),
            order,
            position,
        }
    }
}

/// `corpus`'s inputs, encoded here (tests).
#[cfg(test)]
pub(crate) fn case_inputs(corpus: &Corpus) -> Inputs {
    Inputs::of(
        corpus,
        &crate::recording::case_store::CaseInputs::of(corpus).each,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recording::case_store::case_input;

    #[test]
    fn the_visible_inputs_are_each_cases_input_in_one_array() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        let corpus = crate::corpus::load(&dir).expect("the shipped corpus loads");
        let inputs = case_inputs(&corpus);
        let each: Vec<String> = inputs.order[..inputs.visible_count]
            .iter()
            .map(|&i| case_input(&corpus.cases[i]))
            .collect();
        assert!(!each.is_empty() && !inputs.hidden_each.is_empty());
        assert_eq!(inputs.visible.get(), format!("[{}]", each.join(",")));
        let hidden: Vec<String> = inputs.order[inputs.visible_count..]
            .iter()
            .map(|&i| case_input(&corpus.cases[i]))
            .collect();
        assert_eq!(inputs.hidden_each, hidden);
        assert_eq!(inputs.hidden, format!("[{}]", hidden.join(",")));
    }
}

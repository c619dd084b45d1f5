//! Candidate calls for one hidden failure: the checkpoint's visible cases,
//! each changed at one place ([`super::perturb`]), those sharing a tag with
//! the hidden case first. A candidate is a call the student has never seen
//! (no visible case's input) that shows nothing of a hidden one
//! ([`Secrets::reveals`]), that the reference core can make, and that reads
//! back in Python as written (so a student can paste it).

use super::perturb;
use crate::corpus::{Case, Corpus, Visibility};
use crate::grade::feedback::{rereads, spelled, CALL_CHARS};
use crate::value::repr::repr;
use crate::value::{strict_eq, PyValue};
use std::collections::HashSet;

/// A call's positional and keyword arguments.
type Arguments = (Vec<PyValue>, Vec<(String, PyValue)>);

/// A call to try: its arguments and how a student would write it.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub checkpoint: String,
    pub args: Vec<PyValue>,
    pub kwargs: Vec<(String, PyValue)>,
    /// The call as Python (at most [`CALL_CHARS`] characters).
    pub call: String,
}

/// Values shorter than this (as repr) are too common to tell a hidden
/// input (`0`, `''`, `[]`, `'c1'`).
pub const TRIVIAL_REPR_CHARS: usize = 6;
/// A hidden str argument this long (in code points) is not shown even
/// inside a longer str.
pub const STR_INSIDE_CHARS: usize = 6;

/// What no candidate of one checkpoint may show: its hidden cases' inputs.
/// A candidate *reveals* a hidden input when its arguments equal a hidden
/// case's, or when it contains a hidden *fragment*: an argument value of a
/// hidden case (positional or keyword) that is not trivial (its repr has at
/// least [`TRIVIAL_REPR_CHARS`] characters) and that no visible case of the
/// checkpoint holds (as an argument or inside one). Contains means: a part
/// of an argument strictly equal to the fragment, the fragment's repr
/// inside the candidate's call text, or, for a str fragment of at least
/// [`STR_INSIDE_CHARS`] code points, its text inside a str of the candidate.
pub struct Secrets {
    hidden: Vec<Arguments>,
    /// (fragment, its repr).
    fragments: Vec<(PyValue, String)>,
    /// Every visible case's call as spelled: calls the student has seen.
    seen: HashSet<String>,
}

impl Secrets {
    /// The hidden inputs of `checkpoint`'s cases in `corpus`.
    pub fn of(corpus: &Corpus, checkpoint: &str) -> Secrets {
        let cases: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == checkpoint)
            .collect();
        let arguments = |c: &&Case| -> Vec<PyValue> {
            c.args
                .iter()
                .chain(c.kwargs.iter().map(|(_, v)| v))
                .cloned()
                .collect()
        };
        let (visible, hidden): (Vec<&Case>, Vec<&Case>) = cases
            .into_iter()
            .partition(|c| c.visibility == Visibility::Visible);
        let shown: Vec<PyValue> = visible.iter().flat_map(arguments).collect();
        let mut fragments: Vec<(PyValue, String)> = Vec::new();
        for v in hidden.iter().flat_map(arguments) {
            let text = repr(&v);
            if text.chars().count() < TRIVIAL_REPR_CHARS
                || shown.iter().any(|s| holds(s, &v))
                || fragments.iter().any(|(_, t)| *t == text)
            {
                continue;
            }
            fragments.push((v, text));
        }
        Secrets {
            hidden: hidden
                .iter()
                .map(|c| (c.args.clone(), c.kwargs.clone()))
                .collect(),
            fragments,
            seen: visible
                .iter()
                .map(|c| spelled(&c.checkpoint, &c.args, &c.kwargs))
                .collect(),
        }
    }

    /// Whether a call with these arguments (spelled `call`) equals or
    /// contains a hidden input (see [`Secrets`]).
    pub fn reveals(&self, args: &[PyValue], kwargs: &[(String, PyValue)], call: &str) -> bool {
        let same = |a: &[PyValue], b: &[PyValue]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| strict_eq(x, y))
        };
        let equal = self.hidden.iter().any(|(ha, hk)| {
            same(ha, args)
                && hk.len() == kwargs.len()
                && hk
                    .iter()
                    .zip(kwargs)
                    .all(|((a, x), (b, y))| a == b && strict_eq(x, y))
        });
        if equal {
            return true;
        }
        let all: Vec<&PyValue> = args.iter().chain(kwargs.iter().map(|(_, v)| v)).collect();
        self.fragments.iter().any(|(fragment, text)| {
            call.contains(text.as_str())
                || all.iter().any(|a| holds(a, fragment))
                || match fragment {
                    PyValue::Str(s) if s.len() >= STR_INSIDE_CHARS => {
                        all.iter().any(|a| str_inside(a, s))
                    }
                    _ => false,
                }
        })
    }

    /// Whether `call` (spelled) is a visible case's call.
    pub fn seen(&self, call: &str) -> bool {
        self.seen.contains(call)
    }
}

/// Whether `whole` is `part` or holds it somewhere inside (strictly equal).
fn holds(whole: &PyValue, part: &PyValue) -> bool {
    if strict_eq(whole, part) {
        return true;
    }
    match whole {
        PyValue::List(xs) | PyValue::Tuple(xs) => xs.iter().any(|x| holds(x, part)),
        PyValue::Dict(d) => d.iter().any(|(k, v)| holds(k, part) || holds(v, part)),
        _ => false,
    }
}

/// Whether a str somewhere in `whole` has `needle` inside it.
fn str_inside(whole: &PyValue, needle: &crate::value::PyStr) -> bool {
    match whole {
        PyValue::Str(s) => s.contains(needle),
        PyValue::List(xs) | PyValue::Tuple(xs) => xs.iter().any(|x| str_inside(x, needle)),
        PyValue::Dict(d) => d
            .iter()
            .any(|(k, v)| str_inside(k, needle) || str_inside(v, needle)),
        _ => false,
    }
}

/// What makes candidates: the corpus's visible cases of one checkpoint and
/// its [`Secrets`], and the calls already made (never twice).
pub struct Maker<'a> {
    checkpoint: &'a str,
    visible: Vec<&'a Case>,
    secrets: Secrets,
    made: HashSet<String>,
}

impl<'a> Maker<'a> {
    pub fn new(corpus: &'a Corpus, checkpoint: &'a str) -> Maker<'a> {
        Maker {
            checkpoint,
            visible: corpus
                .cases
                .iter()
                .filter(|c| c.checkpoint == checkpoint && c.visibility == Visibility::Visible)
                .collect(),
            secrets: Secrets::of(corpus, checkpoint),
            made: HashSet::new(),
        }
    }

    /// The checkpoint's secrets.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// `args`/`kwargs` as a candidate, when it may be tried: a call the
    /// core can make, spelled within [`CALL_CHARS`], read back as the same
    /// values, never seen nor made before, revealing nothing hidden.
    pub fn admit(
        &mut self,
        args: Vec<PyValue>,
        kwargs: Vec<(String, PyValue)>,
    ) -> Option<Candidate> {
        crate::reference::check_call(self.checkpoint, &args, &kwargs).ok()?;
        let call = spelled(self.checkpoint, &args, &kwargs);
        if call.chars().count() > CALL_CHARS
            || self.secrets.seen(&call)
            || self.made.contains(&call)
            || !rereads(&call, &args, &kwargs)
            || self.secrets.reveals(&args, &kwargs, &call)
        {
            return None;
        }
        self.made.insert(call.clone());
        Some(Candidate {
            checkpoint: self.checkpoint.to_string(),
            args,
            kwargs,
            call,
        })
    }

    /// Up to `budget` new candidates for a hidden case tagged `tags`, made
    /// from the visible cases in three tiers, each taking turns (one variant
    /// of each seed in turn): those in `same` (the visible cases the
    /// submission fails with the same mistake: their variants most likely
    /// keep it), up to half the budget; then those sharing a tag with the
    /// hidden case, up to three quarters; then the others. Within a tier,
    /// seeds sharing rarer tags come first (`Maker::affinity`), and each
    /// seed's changes of the kinds its tags name first
    /// ([`perturb::Change::for_tags`]).
    /// Deterministic.
    pub fn for_tags(
        &mut self,
        tags: &[String],
        same: &HashSet<String>,
        budget: usize,
    ) -> Vec<Candidate> {
        let mut seeds: Vec<(u64, usize, &Case)> = self
            .visible
            .iter()
            .enumerate()
            .map(|(i, c)| (self.affinity(c, tags), i, *c))
            .collect();
        seeds.sort_by_key(|(score, i, _)| (std::cmp::Reverse(*score), *i));
        let (first, rest): (Vec<_>, Vec<_>) = seeds
            .into_iter()
            .partition(|(_, _, c)| same.contains(&c.id));
        let (near, far): (Vec<_>, Vec<_>) = rest.into_iter().partition(|(score, ..)| *score > 0);
        let mut out = Vec::new();
        let prefer = perturb::Change::for_tags(tags);
        let tiers = [(first, budget / 2), (near, budget * 3 / 4), (far, budget)];
        for (seeds, cut) in tiers {
            self.take_turns(&seeds, &prefer, cut, &mut out);
        }
        out
    }

    /// How close a visible case is to a hidden case tagged `tags`: the tags
    /// they share, each weighing more the fewer visible cases carry it
    /// (`valid` counts only when it is the hidden case's one tag).
    fn affinity(&self, case: &Case, tags: &[String]) -> u64 {
        case.tags
            .iter()
            .filter(|t| tags.contains(t) && (t.as_str() != "valid" || tags.len() == 1))
            .map(|t| {
                let carriers = self.visible.iter().filter(|c| c.tags.contains(t)).count();
                1_000_000 / carriers.max(1) as u64
            })
            .sum()
    }

    /// One variant of each seed in turn until `out` holds `budget`.
    fn take_turns(
        &mut self,
        seeds: &[(u64, usize, &Case)],
        prefer: &[perturb::Change],
        budget: usize,
        out: &mut Vec<Candidate>,
    ) {
        // Each seed's variants made when its first turn comes.
        let mut each: Vec<Option<CallVariants>> = seeds.iter().map(|_| None).collect();
        while out.len() < budget {
            let mut any = false;
            for (slot, (_, _, case)) in each.iter_mut().zip(seeds) {
                if out.len() >= budget {
                    break;
                }
                let it = slot.get_or_insert_with(|| CallVariants::of(case, prefer));
                for (args, kwargs) in it.by_ref() {
                    any = true;
                    if let Some(c) = self.admit(args, kwargs) {
                        out.push(c);
                        break;
                    }
                }
            }
            if !any {
                break;
            }
        }
    }
}

/// A case's calls that differ from it at one place of one argument: each
/// argument's [`perturb::Variants`] (the preferred kinds of change first),
/// the arguments taking turns.
struct CallVariants {
    args: Vec<PyValue>,
    kwargs: Vec<(String, PyValue)>,
    each: Vec<perturb::Variants>,
    /// The argument whose turn it is.
    turn: usize,
}

impl CallVariants {
    fn of(case: &Case, prefer: &[perturb::Change]) -> CallVariants {
        CallVariants {
            args: case.args.clone(),
            kwargs: case.kwargs.clone(),
            each: case
                .args
                .iter()
                .chain(case.kwargs.iter().map(|(_, v)| v))
                .map(|v| perturb::Variants::of(v, prefer))
                .collect(),
            turn: 0,
        }
    }
}

impl Iterator for CallVariants {
    type Item = Arguments;

    fn next(&mut self) -> Option<Self::Item> {
        let n = self.each.len();
        for _ in 0..n {
            let j = self.turn % n;
            self.turn += 1;
            if let Some(v) = self.each[j].next() {
                let (mut args, mut kwargs) = (self.args.clone(), self.kwargs.clone());
                if j < args.len() {
                    args[j] = v;
                } else {
                    kwargs[j - self.args.len()].1 = v;
                }
                return Some((args, kwargs));
            }
        }
        None
    }
}

/// Calls smaller than `c` by one cut in one argument ([`perturb::shrinks`]),
/// smallest first, admitted by `maker`; at most `budget`.
pub fn shrunk(maker: &mut Maker, c: &Candidate, budget: usize) -> Vec<Candidate> {
    let n = c.args.len();
    let mut all: Vec<Arguments> = Vec::new();
    for (j, v) in c
        .args
        .iter()
        .chain(c.kwargs.iter().map(|(_, v)| v))
        .enumerate()
    {
        for s in perturb::shrinks(v) {
            let (mut args, mut kwargs) = (c.args.clone(), c.kwargs.clone());
            if j < n {
                args[j] = s;
            } else {
                kwargs[j - n].1 = s;
            }
            all.push((args, kwargs));
        }
    }
    let size = |(a, k): &Arguments| spelled("", a, k).chars().count();
    all.sort_by_key(size);
    let mut out = Vec::new();
    for (args, kwargs) in all {
        if out.len() >= budget {
            break;
        }
        if let Some(c) = maker.admit(args, kwargs) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        crate::corpus::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/cases"
        )))
        .unwrap()
    }

    #[test]
    fn candidates_are_bounded_deterministic_fresh_and_never_a_hidden_input() {
        let corpus = corpus();
        let cp = "order_tool_results";
        let hidden: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == cp && c.visibility == Visibility::Hidden)
            .collect();
        let tags = hidden[0].tags.clone();
        let made = Maker::new(&corpus, cp).for_tags(&tags, &HashSet::new(), 150);
        assert_eq!(made.len(), 150);
        let again = Maker::new(&corpus, cp).for_tags(&tags, &HashSet::new(), 150);
        let calls: Vec<&str> = made.iter().map(|c| c.call.as_str()).collect();
        assert_eq!(
            calls,
            again.iter().map(|c| c.call.as_str()).collect::<Vec<_>>()
        );
        let unique: HashSet<&str> = calls.iter().copied().collect();
        assert_eq!(unique.len(), calls.len(), "a call made twice");
        let visible: HashSet<String> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == cp && c.visibility == Visibility::Visible)
            .map(|c| spelled(cp, &c.args, &c.kwargs))
            .collect();
        for c in &made {
            assert!(!visible.contains(&c.call), "{} is a visible case", c.call);
            for h in &hidden {
                assert_ne!(c.call, spelled(cp, &h.args, &h.kwargs), "a hidden input");
                for arg in &h.args {
                    let text = repr(arg);
                    let shown_visibly = visible.iter().any(|v| v.contains(&text));
                    assert!(
                        text.chars().count() < TRIVIAL_REPR_CHARS
                            || shown_visibly
                            || !c.call.contains(&text),
                        "{} contains the hidden argument {text}",
                        c.call
                    );
                }
            }
            crate::reference::check_call(cp, &c.args, &c.kwargs).unwrap();
        }
    }

    #[test]
    fn a_hidden_fragment_is_revealed_equal_inside_or_in_a_longer_string() {
        let corpus = corpus();
        let cp = "parse_contract_json";
        let secrets = Secrets::of(&corpus, cp);
        let hidden = corpus
            .cases
            .iter()
            .find(|c| {
                c.checkpoint == cp
                    && c.visibility == Visibility::Hidden
                    && secrets
                        .fragments
                        .iter()
                        .any(|(f, _)| strict_eq(f, &c.args[0]))
            })
            .expect("a hidden parse_contract_json case with an input of its own");
        let text = hidden.args[0].clone();
        let call = |args: &[PyValue]| spelled(cp, args, &[]);
        assert!(secrets.reveals(&hidden.args, &[], &call(&hidden.args)));
        let PyValue::Str(s) = &text else {
            panic!("not a str")
        };
        let longer = vec![PyValue::Str(crate::value::PyStr::from(" ").concat(s))];
        assert!(secrets.reveals(&longer, &[], &call(&longer)));
        let inside = vec![PyValue::List(vec![text.clone()])];
        assert!(secrets.reveals(&inside, &[], &call(&inside)));
        let other = vec![PyValue::str("{}")];
        assert!(!secrets.reveals(&other, &[], &call(&other)));
    }
}

//! The README's first recipe, an instructor grading a folder, run as
//! written (the Gradescope and CI recipes run in their own modules).

use crate::util::deploy::*;
use std::fs;

#[test]
fn the_instructor_recipe_grades_a_folder_into_a_gradebook_and_a_dashboard() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let course = course(tmp.path());
    let subs = course.join("submissions");
    submission(&subs, "model", &bundled("model-solution"));
    submission(&subs, "buggy", &bundled("returns-input-call"));
    let out = run_recipe(1, &course, &[]);
    expect_code(&out, 0, "recipe 1");
    let csv = fs::read_to_string(course.join("grades.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 3, "a header and a row per submission: {csv}");
    assert!(rows.iter().any(|r| r.starts_with("model,")), "{csv}");
    assert!(rows.iter().any(|r| r.starts_with("buggy,")), "{csv}");
    let html = fs::read_to_string(course.join("dashboard.html")).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"),
        "a page"
    );
    // The terminal gradebook names both, and only this assignment's lesson.
    let table = text(&out.stdout);
    assert!(
        table.contains("model") && table.contains("buggy"),
        "{table}"
    );
    assert!(!table.contains("json-contract"), "{table}");
}

//! One file over HTTP on 127.0.0.1, as a release is served: a CI job's
//! `curl` fetches the archive from it the way it fetches a real release,
//! with no network and no server to install. It counts the requests it
//! answered, so a test can tell the archive came from it.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A file served on a free port until the test binary exits.
pub struct Served {
    /// Where `curl` finds the file.
    pub url: String,
    fetched: Arc<AtomicUsize>,
}

impl Served {
    /// How many times the file was sent.
    pub fn fetched(&self) -> usize {
        self.fetched.load(Ordering::SeqCst)
    }
}

/// Serves `file` at `/<its name>`; any other path is a 404.
pub fn serve(file: &Path) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free local port");
    let port = listener.local_addr().unwrap().port();
    let path = format!("/{}", file.file_name().unwrap().to_str().unwrap());
    let body = std::fs::read(file).unwrap();
    let fetched = Arc::new(AtomicUsize::new(0));
    let url = format!("http://127.0.0.1:{port}{path}");
    let count = Arc::clone(&fetched);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if respond(stream, &path, &body) {
                count.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    Served { url, fetched }
}

/// Answers one request (HTTP/1.1, then the connection closes); whether it
/// sent the file.
fn respond(stream: TcpStream, path: &str, body: &[u8]) -> bool {
    let mut reader = BufReader::new(&stream);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return false;
    }
    // The headers, unread: nothing in them changes the answer.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
        line.clear();
    }
    let mut words = request.split_whitespace();
    let found = words.next() == Some("GET") && words.next() == Some(path);
    let (status, body) = if found {
        ("200 OK", body)
    } else {
        ("404 Not Found", &b"not found\n"[..])
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/octet-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = &stream;
    let sent = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body));
    found && sent.is_ok()
}

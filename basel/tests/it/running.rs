//! A `basel` process started with any arguments and environment (no
//! `serve` word needed), whose stderr is kept and whose listen addresses are
//! read from its start-up lines in either log format (`addr=…` in text,
//! `"addr":"…"` in JSON).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::process::Basel;
use crate::support::eventually_blocking;

/// A running `basel`, killed when dropped.
pub struct Running {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    /// Set when stderr closed and every line was read.
    drained: Arc<AtomicBool>,
    /// `http://ADDR` per start-up field (`addr`, `mcp_addr`, `ops_addr`).
    pub urls: HashMap<String, String>,
}

/// The value of `field` in a text (`field=value`) or JSON (`"field":"value"`) line.
pub fn field(line: &str, field: &str) -> Option<String> {
    let text = format!(" {field}=");
    let json = format!("\"{field}\":\"");
    if let Some(rest) = line.split(&text).nth(1) {
        return rest.split_whitespace().next().map(str::to_owned);
    }
    line.split(&json)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .map(str::to_owned)
}

impl Running {
    /// Starts `basel ARGS` on `basel`'s store with `env` added, and waits
    /// (≤ 60 s) until it logged every field of `fields`.
    pub fn start(basel: &Basel, args: &[&str], env: &[(&str, &str)], fields: &[&str]) -> Self {
        let mut command: Command = basel.basel(args);
        command.envs(env.iter().copied());
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("basel starts");
        let stderr = child.stderr.take().expect("stderr");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let kept = lines.clone();
        let drained = Arc::new(AtomicBool::new(false));
        let done = drained.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                kept.lock().expect("lines").push(line);
            }
            done.store(true, Ordering::Release);
        });
        let mut running = Self {
            child,
            lines,
            drained,
            urls: HashMap::new(),
        };
        let found = eventually_blocking(Duration::from_secs(60), || {
            for line in running.lines() {
                for name in fields {
                    if let Some(addr) = field(&line, name) {
                        running
                            .urls
                            .insert((*name).to_owned(), format!("http://{addr}"));
                    }
                }
            }
            fields.iter().all(|name| running.urls.contains_key(*name))
                || running.child.try_wait().ok().flatten().is_some()
        });
        assert!(
            found.is_some() && fields.iter().all(|name| running.urls.contains_key(*name)),
            "basel did not log {fields:?} within 60 s:\n{}",
            running.lines().join("\n")
        );
        running
    }

    /// The URL of a start-up field.
    pub fn url(&self, field: &str) -> &str {
        &self.urls[field]
    }

    /// Every stderr line so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().expect("lines").clone()
    }

    /// SIGTERM, then wait (≤ 20 s) for the exit; returns every stderr line.
    pub fn stop(mut self) -> Vec<String> {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let exited = eventually_blocking(Duration::from_secs(20), || {
            self.child.try_wait().ok().flatten().is_some()
        });
        assert!(
            exited.is_some(),
            "basel did not exit within 20 s of SIGTERM"
        );
        let drained = eventually_blocking(Duration::from_secs(5), || {
            self.drained.load(Ordering::Acquire)
        });
        assert!(drained.is_some(), "stderr was not drained within 5 s");
        self.lines()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

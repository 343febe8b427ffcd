//! NATS as operators run it: a three-node cluster with an R3
//! stream that loses a follower and then its leader under writes, a URL
//! list whose first server is dead, and servers that want a password, a
//! token or an nkey. Every server here is the test's own (never the shared
//! one on 4222).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use async_nats::jetstream;

use crate::divergence::{catch_up_time, Load};
use crate::faults::{assert_nothing_lost, countries};
use crate::process::{read_stream, update, verify_record, Basel, Nats, Node};
use crate::support::{eventually, free_port, listening};

fn nats_server() -> &'static str {
    ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or_else(|| {
            panic!("nats-server is not installed (apt-get install nats-server; .ci/run does)")
        })
}

/// One server of a [`Cluster`].
struct Member {
    name: String,
    port: u16,
    config: std::path::PathBuf,
    child: Option<Child>,
}

impl Member {
    fn start(&mut self) {
        let child = Command::new(nats_server())
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        self.child = Some(child);
        assert!(
            listening(self.port, Duration::from_secs(10)),
            "{} did not listen on {} within 10 s",
            self.name,
            self.port
        );
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

/// Three nats-servers with JetStream, routed to each other on loopback,
/// each with a store directory of its own.
struct Cluster {
    members: Vec<Member>,
    _dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let routes: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let route_list = routes
            .iter()
            .map(|p| format!("\"nats-route://127.0.0.1:{p}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let mut members = Vec::new();
        for (n, route) in routes.iter().enumerate() {
            let name = format!("n{n}");
            let port = free_port();
            let store = dir.path().join(&name);
            let config = dir.path().join(format!("{name}.conf"));
            std::fs::write(
                &config,
                format!(
                    "server_name: {name}\nlisten: \"127.0.0.1:{port}\"\n\
                     jetstream {{ store_dir: \"{}\" }}\n\
                     cluster {{ name: basel_test\n listen: \"127.0.0.1:{route}\"\n routes: [{route_list}] }}\n",
                    store.display()
                ),
            )
            .expect("config");
            members.push(Member {
                name,
                port,
                config,
                child: None,
            });
        }
        for member in &mut members {
            member.start();
        }
        Self { members, _dir: dir }
    }

    /// Every server's URL, comma-separated.
    fn urls(&self) -> String {
        self.members
            .iter()
            .map(Member::url)
            .collect::<Vec<_>>()
            .join(",")
    }

    fn member(&mut self, name: &str) -> &mut Member {
        self.members
            .iter_mut()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no member {name}"))
    }

    /// JetStream through the servers that are up.
    async fn jetstream(&self) -> jetstream::Context {
        let urls: Vec<String> = self
            .members
            .iter()
            .filter(|m| m.child.is_some())
            .map(Member::url)
            .collect();
        let client = async_nats::ConnectOptions::new()
            .connection_timeout(Duration::from_secs(2))
            .connect(urls)
            .await
            .expect("the cluster answers");
        jetstream::new(client)
    }

    /// Waits (at most 30 s) until JetStream places an R3 stream (a probe,
    /// deleted again).
    async fn ready(&self) {
        let context = self.jetstream().await;
        let ready = eventually(Duration::from_secs(30), || async {
            context
                .get_or_create_stream(jetstream::stream::Config {
                    name: "PROBE".into(),
                    subjects: vec!["probe.>".into()],
                    num_replicas: 3,
                    ..Default::default()
                })
                .await
                .is_ok()
        })
        .await;
        assert!(ready.is_some(), "the cluster placed no R3 stream in 30 s");
        let _ = context.delete_stream("PROBE").await;
    }

    /// The stream's leader and followers, once every replica is current
    /// (at most 30 s).
    async fn placement(&self, stream: &str) -> (String, Vec<String>) {
        let context = self.jetstream().await;
        let placed = crate::support::eventually_some(Duration::from_secs(30), || async {
            let mut stream = context.get_stream(stream).await.ok()?;
            let info = stream.info().await.ok()?;
            let cluster = info.cluster.clone()?;
            let leader = cluster.leader?;
            let followers: Vec<String> = cluster
                .replicas
                .iter()
                .filter(|p| p.current && !p.offline)
                .map(|p| p.name.clone())
                .collect();
            (followers.len() == 2).then_some((leader, followers))
        })
        .await;
        placed.expect("the stream has a leader and two current followers within 30 s")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for member in &mut self.members {
            member.kill();
        }
    }
}

/// The stream holds every event of the store exactly once.
async fn assert_stream_complete(deployment: &Basel, context: &jetstream::Context) {
    let published = read_stream(context, &deployment.stream).await;
    let db = deployment.db().await;
    let total: i64 = sqlx::query_scalar("SELECT CAST(COUNT(*) AS BIGINT) FROM events")
        .fetch_one(&db)
        .await
        .expect("count");
    let ids: BTreeSet<String> = published
        .iter()
        .map(|e| {
            format!(
                "{}:{}:{}",
                e["aggregate_type"], e["aggregate_id"], e["sequence"]
            )
        })
        .collect();
    assert_eq!(
        ids.len(),
        published.len(),
        "an event is on the stream twice"
    );
    assert_eq!(
        published.len() as i64,
        total,
        "the stream holds every event"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_three_node_cluster_loses_a_follower_then_the_leader_under_writes_and_nothing_is_lost() {
    let started = Instant::now();
    let mut cluster = Cluster::start();
    cluster.ready().await;
    let deployment = Basel::postgres()
        .await
        .with_secret()
        .with_nats(&cluster.urls())
        .with_env("BASEL_NATS_REPLICAS", "3");
    let node = deployment.serve().await;
    let token = deployment.enrol("Cluster Tester", "steward@example.org");
    let load = Load::start(&node, &token, countries(&deployment, 20).await, "cluster");
    load.advance(30).await;
    let (leader, followers) = cluster.placement(&deployment.stream).await;

    cluster.member(&followers[0]).kill();
    load.advance(30).await;
    let follower_catch_up = catch_up_time(&deployment).await;
    cluster.member(&followers[0]).start();
    // The follower is current again before the leader goes.
    cluster.placement(&deployment.stream).await;

    cluster.member(&leader).kill();
    load.advance(30).await;
    let leader_catch_up = catch_up_time(&deployment).await;
    eprintln!(
        "catch-up under writes: follower killed {follower_catch_up:?}, leader killed {leader_catch_up:?}"
    );
    let (new_leader, _) = {
        cluster.member(&leader).start();
        cluster.placement(&deployment.stream).await
    };
    assert_ne!(new_leader, "", "a leader");

    let (acked, _) = load.finish().await;
    assert!(acked.len() >= 90, "{} writes acknowledged", acked.len());
    assert_nothing_lost(&deployment, &acked, None).await;
    assert_stream_complete(&deployment, &cluster.jetstream().await).await;
    let ready = eventually(Duration::from_secs(10), || async {
        matches!(node.get("/readyz").await, Some((200, _)))
    })
    .await;
    assert!(ready.is_some(), "/readyz is ready again");
    eprintln!("cluster test took {:?}", started.elapsed());
    drop(node);
}

/// One steward update through `node`, seen on the directory.
async fn one_write_goes_through(deployment: &Basel, node: &Node) {
    let token = deployment.enrol("Url Tester", "steward@example.org");
    let status = verify_record(&node.http, &node.base, &token, "DE", &update("list")).await;
    assert_eq!(status, Some(200), "the update is visible in its answer");
    assert!(
        eventually(Duration::from_secs(10), || crate::faults::settled(
            deployment
        ))
        .await
        .is_some(),
        "the relay published and every projection applied"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_url_list_whose_first_server_is_dead_works() {
    let nats = Nats::start();
    let dead = format!("nats://127.0.0.1:{}", free_port());
    let deployment = Basel::postgres()
        .await
        .with_secret()
        .with_nats(&format!("{dead}, {}", nats.url()));
    let node = deployment.serve().await;
    one_write_goes_through(&deployment, &node).await;
    let published = read_stream(&nats.jetstream().await, &deployment.stream).await;
    assert!(
        !published.is_empty(),
        "the relay published to the live server"
    );
    let durable = nats
        .jetstream()
        .await
        .get_stream(&deployment.stream)
        .await
        .expect("stream")
        .consumer_info("basel_directory")
        .await
        .expect("the directory's durable consumer exists");
    assert_eq!(
        durable.config.durable_name.as_deref(),
        Some("basel_directory")
    );
}

/// A nats-server of this test's own started with `args` (authentication).
struct AuthNats {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl AuthNats {
    fn start(config: &str) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let file = dir.path().join("nats.conf");
        std::fs::write(
            &file,
            format!(
                "listen: \"127.0.0.1:{port}\"\njetstream {{ store_dir: \"{}\" }}\n{config}\n",
                dir.path().join("js").display()
            ),
        )
        .expect("config");
        let child = Command::new(nats_server())
            .arg("-c")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        assert!(
            listening(port, Duration::from_secs(10)),
            "nats-server listens"
        );
        Self {
            child,
            port,
            _dir: dir,
        }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for AuthNats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `node`'s `/readyz` answers 503 naming NATS for the projector
/// within 10 s.
async fn projector_says_nats_is_not_connected(node: &Node) -> bool {
    eventually(Duration::from_secs(10), || async {
        matches!(node.get("/readyz").await, Some((503, body))
            if body["details"]["reasons"].to_string().contains("projector: NATS is not connected"))
    })
    .await
    .is_some()
}

const PASSWORD: &str = "pw-9f8e7d6c5b4a";
const TOKEN: &str = "tok-0a1b2c3d4e5f";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn user_and_password_in_the_url_work_and_are_never_logged() {
    let nats = AuthNats::start(&format!(
        "authorization {{ user: basel, password: \"{PASSWORD}\" }}"
    ));
    let url = format!("nats://basel:{PASSWORD}@127.0.0.1:{}", nats.port);
    let deployment = Basel::postgres().await.with_secret().with_nats(&url);
    let node = deployment.serve().await;
    one_write_goes_through(&deployment, &node).await;
    assert!(!node.log().contains(PASSWORD), "the password is in the log");
    let (_, ready) = node.get("/readyz").await.expect("readyz");
    assert_eq!(ready["nats"], "connected", "{ready}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_token_works_and_a_wrong_one_leaves_the_projector_not_ready_with_the_reason() {
    let nats = AuthNats::start(&format!("authorization {{ token: \"{TOKEN}\" }}"));
    let deployment = Basel::postgres()
        .await
        .with_secret()
        .with_nats(&nats.url())
        .with_env("BASEL_NATS_TOKEN", TOKEN);
    let node = deployment.serve().await;
    one_write_goes_through(&deployment, &node).await;
    node.stop();

    let wrong = deployment.with_env("BASEL_NATS_TOKEN", "not-the-token");
    let node = wrong.serve().await;
    assert!(
        projector_says_nats_is_not_connected(&node).await,
        "/readyz names NATS for the projector"
    );
    let log = node.log();
    assert!(
        !log.contains("not-the-token") && !log.contains(TOKEN),
        "a token is in the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_nkey_seed_file_works() {
    let user = nkeys::KeyPair::new_user();
    let seed = user.seed().expect("seed");
    let nats = AuthNats::start(&format!(
        "authorization {{ users: [ {{ nkey: {} }} ] }}",
        user.public_key()
    ));
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let seed_file = deployment.dir().join("basel.nk");
    std::fs::write(&seed_file, format!("{seed}\n")).expect("seed file");
    let deployment = deployment.with_env("BASEL_NATS_NKEY", &seed_file.display().to_string());
    let node = deployment.serve().await;
    one_write_goes_through(&deployment, &node).await;
    assert!(!node.log().contains(&seed), "the seed is in the log");
}

/// A NATS JWT (`ed25519-nkey`), as `nsc` writes them: `claims` with the
/// issuer, subject, time and id filled in, signed by `issuer`.
fn nats_jwt(issuer: &nkeys::KeyPair, subject: &str, name: &str, nats: serde_json::Value) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let header = URL_SAFE_NO_PAD.encode(r#"{"typ":"JWT","alg":"ed25519-nkey"}"#);
    let claims = serde_json::json!({
        "jti": uuid::Uuid::new_v4().simple().to_string().to_uppercase(),
        "iat": chrono::Utc::now().timestamp(),
        "iss": issuer.public_key(),
        "name": name,
        "sub": subject,
        "nats": nats,
    });
    let signed = format!("{header}.{}", URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signature = issuer.sign(signed.as_bytes()).expect("sign");
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature))
}

/// A server in operator mode (accounts and users from JWTs, as `nsc`
/// sets one up) and a `.creds` file of a user of its JetStream account.
fn operator_mode() -> (AuthNats, String) {
    let operator = nkeys::KeyPair::new_operator();
    let system = nkeys::KeyPair::new_account();
    let account = nkeys::KeyPair::new_account();
    let user = nkeys::KeyPair::new_user();
    let version = |kind: &str| serde_json::json!({"type": kind, "version": 2});
    let operator_jwt = nats_jwt(
        &operator,
        &operator.public_key(),
        "test",
        version("operator"),
    );
    let unlimited = serde_json::json!({
        "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
        "wildcards": true, "conn": -1, "leaf": -1,
        "mem_storage": -1, "disk_storage": -1, "streams": -1, "consumer": -1,
    });
    let mut claims = version("account");
    claims["limits"] = unlimited;
    let account_jwt = nats_jwt(&operator, &account.public_key(), "basel", claims);
    let system_jwt = nats_jwt(&operator, &system.public_key(), "SYS", version("account"));
    let mut claims = version("user");
    for (field, value) in [
        ("pub", serde_json::json!({})),
        ("sub", serde_json::json!({})),
        ("subs", serde_json::json!(-1)),
        ("data", serde_json::json!(-1)),
        ("payload", serde_json::json!(-1)),
    ] {
        claims[field] = value;
    }
    let user_jwt = nats_jwt(&account, &user.public_key(), "basel", claims);
    let nats = AuthNats::start(&format!(
        "operator: \"{operator_jwt}\"\nsystem_account: {}\nresolver: MEMORY\nresolver_preload: {{\n  {}: \"{account_jwt}\"\n  {}: \"{system_jwt}\"\n}}",
        system.public_key(),
        account.public_key(),
        system.public_key(),
    ));
    let seed = user.seed().expect("seed");
    let creds = format!(
        "-----BEGIN NATS USER JWT-----\n{user_jwt}\n------END NATS USER JWT------\n\n\
         ************************* IMPORTANT *************************\n\
         NKEY Seed printed below can be used to sign and prove identity.\n\
         NKEYs are sensitive and should be treated as secrets.\n\n\
         -----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n\n\
         *************************************************************\n"
    );
    (nats, creds)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_credentials_file_works_against_a_server_in_operator_mode() {
    let (nats, creds) = operator_mode();
    let deployment = Basel::postgres().await.with_secret().with_nats(&nats.url());
    let seed = creds
        .lines()
        .find(|l| l.starts_with("SU"))
        .expect("the seed line")
        .to_owned();

    // Without credentials the server refuses: the projector says so.
    let node = deployment.serve().await;
    assert!(
        projector_says_nats_is_not_connected(&node).await,
        "without the .creds file NATS refuses"
    );
    node.stop();

    let file = deployment.dir().join("basel.creds");
    std::fs::write(&file, &creds).expect("creds file");
    let deployment = deployment.with_env("BASEL_NATS_CREDS", &file.display().to_string());
    let node = deployment.serve().await;
    one_write_goes_through(&deployment, &node).await;
    let (_, ready) = node.get("/readyz").await.expect("readyz");
    assert_eq!(ready["nats"], "connected", "{ready}");
    assert!(!node.log().contains(&seed), "the seed is in the log");
}

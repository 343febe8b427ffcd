//! Running an import: check the file and the steward, plan every Party
//! against the store, report each row that changes, then write (or, with
//! `--dry-run`, stop there).

use std::fmt;
use std::io::Write;

use anyhow::{anyhow, bail};
use chrono::Utc;

use commands::authority::AuthorityCommands;
use commands::CommandError;
use domain::authority::{AuthorityCommand, AuthorityError, ReviewCommand};
use domain::metadata::{Actor, Metadata};
use domain::values::{CountryCode, Slug};

use super::check::{party_of_group, Blame};
use super::plan::{plan, Context, Plan, Status};
use super::read::Rows;
use crate::Stores;

/// What `basel import` was asked.
pub struct Import<'a> {
    /// The file's name, as given.
    pub file: &'a str,
    /// The steward it is attributed to.
    pub steward: &'a str,
    /// Report only, write nothing.
    pub dry_run: bool,
    /// Four-eyes review is on: propose each Party's changes ([`propose`]).
    pub review: bool,
}

/// How many rows had each fate, indexed by [`Status`] in its declared order.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally([usize; 5]);

impl Tally {
    fn add(&mut self, plans: &[(CountryCode, Plan)]) {
        for row in plans.iter().flat_map(|(_, p)| &p.rows) {
            self.0[row.status as usize] += 1;
        }
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [unchanged, updated, added, registered, refused] = self.0;
        write!(f, "{registered} registered, {added} added, {updated} updated, {unchanged} unchanged, {refused} refused")
    }
}

/// Imports `rows` read from `import.file`, attributed to `import.steward`.
///
/// Two passes over the file, each holding one Party at a time: the first
/// checks every row and plans every Party against the store (a dry run
/// reports each Party then and stops); only when no row has a problem does
/// the second plan each Party again against the store as it is then,
/// report it, and write (or propose) it before the next Party is read. A
/// Party whose record changed in between so that a row is now refused is
/// not written, and named.
///
/// Rows that change go to `out`, each problem to `err` as it is found.
///
/// # Errors
/// When a row is invalid or would be refused (every problem listed, nothing
/// imported), the steward is unknown or suspended, or the store fails.
pub async fn import(
    stores: &Stores,
    import: &Import<'_>,
    rows: &Rows,
    out: &mut impl Write,
    err: &mut impl Write,
) -> anyhow::Result<()> {
    let name = import.file;
    let steward = Slug::parse(import.steward).map_err(|e| anyhow!("--steward: {e}"))?;
    stores.catch_up().await?;
    match projections::stewards::by_id(&stores.read_db, steward.as_str()).await? {
        Some(s) if s.status == "active" => {}
        Some(_) => bail!("--steward: steward {steward} is suspended"),
        None => bail!("--steward: no steward {steward} is enrolled (see `basel steward enrol`)"),
    }
    let commands = AuthorityCommands::new(&stores.backend);
    let ctx = Context {
        file: name,
        steward,
        today: Utc::now().date_naive(),
        max_contacts: stores.max_contacts,
    };
    let (tally, problems) = check_all(&commands, &ctx, rows, import.dry_run, out, err).await?;
    if problems > 0 {
        writeln!(out, "Nothing imported from {name}: {tally}.")?;
        bail!("{problems} problem(s), each listed above; nothing imported");
    }
    if import.dry_run {
        writeln!(out, "Dry run of {name}, nothing written: {tally}.")?;
        return Ok(());
    }
    let (tally, done) = write_all(&commands, &ctx, rows, import.review, out).await?;
    stores.wake.notify_one();
    if import.review {
        return report_proposed(name, &done, out);
    }
    if !done.failed.is_empty() {
        writeln!(
            out,
            "Imported {name} in part: {} row(s) or Party(ies) failed while writing.",
            done.failed.len()
        )?;
        bail!(
            "{} row(s) or Party(ies) failed while writing:\n{}",
            done.failed.len(),
            done.failed.join("\n")
        );
    }
    writeln!(out, "Imported {name}: {tally}.")?;
    Ok(())
}

/// The first pass: checks every row and plans every Party, listing each
/// problem to `err` as it is found (and, for a dry run, each Party's rows to
/// `out`). Returns the tally and how many problems there were.
async fn check_all(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    rows: &Rows,
    dry_run: bool,
    out: &mut impl Write,
    err: &mut impl Write,
) -> anyhow::Result<(Tally, usize)> {
    let mut tally = Tally::default();
    let mut problems = 0;
    let mut planner = Planner::new(commands, ctx, rows);
    loop {
        let next = planner.next().await?;
        // Listed as found, not held: a file may have a problem per row.
        for problem in planner.take_problems() {
            problems += 1;
            writeln!(err, "{problem}")?;
        }
        let Some((country, plan)) = next else {
            break;
        };
        let one = [(country, plan)];
        tally.add(&one);
        if dry_run {
            report(ctx.file, &one, true, &mut *out)?;
        }
    }
    Ok((tally, problems))
}

/// The second pass: plans each Party again against the store as it is now,
/// reports it and writes it (or, under review, proposes it) before the next.
async fn write_all(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    rows: &Rows,
    review: bool,
    out: &mut impl Write,
) -> anyhow::Result<(Tally, Proposed)> {
    let name = ctx.file;
    let request = uuid::Uuid::new_v4();
    let mut tally = Tally::default();
    let mut done = Proposed::default();
    let mut planner = Planner::new(commands, ctx, rows);
    while let Some((country, plan)) = planner.next().await? {
        let refused = planner.take_problems();
        if !refused.is_empty() {
            done.failed.push(format!(
                "{name}: {country}: its record changed since the file was checked, and now: {}",
                refused.join("; ")
            ));
            continue;
        }
        let one = [(country, plan)];
        report(name, &one, false, &mut *out)?;
        tally.add(&one);
        if review {
            let proposed = propose(commands, ctx, request, &one).await;
            done.proposals.extend(proposed.proposals);
            done.failed.extend(proposed.failed);
        } else {
            done.failed
                .extend(write(commands, ctx, request, &one).await);
        }
    }
    Ok((tally, done))
}

/// Under review: what was proposed, and what could not be.
fn report_proposed(name: &str, done: &Proposed, out: &mut impl Write) -> anyhow::Result<()> {
    for line in &done.proposals {
        writeln!(
            out,
            "{name}: proposed {line} (awaiting another steward's review)"
        )?;
    }
    if !done.failed.is_empty() {
        bail!(
            "{} Party(ies) could not be proposed:\n{}",
            done.failed.len(),
            done.failed.join("\n")
        );
    }
    writeln!(
        out,
        "Proposed {name} for review (BASEL_REVIEW=required): {} proposal(s), nothing else written.",
        done.proposals.len()
    )?;
    Ok(())
}

/// Checks `rows` (every row and every command in one pass: the file's own
/// problems, then the domain's refusals of the Parties that could be read)
/// and plans each Party against the store. Returns the plans and every
/// problem; nothing may be written unless there is none.
///
/// # Errors
/// When the store cannot be read.
pub async fn prepare(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    rows: &Rows,
) -> anyhow::Result<(Vec<(CountryCode, Plan)>, Vec<String>)> {
    let mut plans = Vec::new();
    let mut planner = Planner::new(commands, ctx, rows);
    while let Some(planned) = planner.next().await? {
        plans.push(planned);
    }
    Ok((plans, planner.problems()))
}

/// [`prepare`], a Party at a time: each Party's lines are found once
/// ([`Rows::groups`]), read ([`Rows::lines`]), checked, and planned against
/// its state before the next Party is read, so a caller that keeps nothing
/// of a plan holds one Party at a time.
pub struct Planner<'a> {
    commands: &'a AuthorityCommands,
    ctx: &'a Context<'a>,
    rows: &'a Rows,
    groups: std::vec::IntoIter<Vec<usize>>,
    blame: Blame<'a>,
}

impl<'a> Planner<'a> {
    /// Plans `rows` from their first Party.
    pub fn new(commands: &'a AuthorityCommands, ctx: &'a Context<'a>, rows: &'a Rows) -> Self {
        Self {
            commands,
            ctx,
            rows,
            groups: rows.groups().into_iter(),
            blame: Blame {
                name: ctx.file,
                problems: rows.problems.clone(),
            },
        }
    }

    /// The next Party that could be read, with its plan; `None` after the
    /// last. Its problems join [`Planner::problems`].
    ///
    /// # Errors
    /// When the file or the store cannot be read.
    pub async fn next(&mut self) -> anyhow::Result<Option<(CountryCode, Plan)>> {
        for group in self.groups.by_ref() {
            let lines = self.rows.lines(&group)?;
            let Some(party) = party_of_group(&lines, &mut self.blame) else {
                continue;
            };
            let state = self
                .commands
                .current(&party.country)
                .await
                .map_err(|e| anyhow!("{e}"))?;
            let plan = plan(&party, &state, self.ctx, &mut self.blame);
            return Ok(Some((party.country, plan)));
        }
        Ok(None)
    }

    /// Every problem found so far: the file's own, then each planned
    /// Party's.
    pub fn problems(self) -> Vec<String> {
        self.blame.problems
    }

    /// The problems found since the last call (the file's own first).
    pub fn take_problems(&mut self) -> Vec<String> {
        std::mem::take(&mut self.blame.problems)
    }
}

/// One line per row that changes or is refused.
fn report(
    name: &str,
    plans: &[(CountryCode, Plan)],
    dry_run: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let verb = if dry_run { "would be " } else { "" };
    for row in plans.iter().flat_map(|(_, p)| &p.rows) {
        let status = match row.status {
            Status::Unchanged => continue,
            Status::Updated => "updated",
            Status::Added => "added",
            Status::Registered => "registered",
            Status::Refused => "refused",
        };
        let what = match row.status {
            Status::Refused => "see the problems below".to_owned(),
            _ => row.what.join(", "),
        };
        writeln!(
            out,
            "{name}: row {} {}: {verb}{status}: {what}",
            row.row, row.label
        )?;
    }
    Ok(())
}

/// Writes every Party's commands in order, each recorded with a request id
/// made of `request` and its row; a Party whose command fails (the store
/// changed since it was read) stops there. Returns what failed.
pub async fn write(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    request: uuid::Uuid,
    plans: &[(CountryCode, Plan)],
) -> Vec<String> {
    let mut failed = Vec::new();
    for (country, plan) in plans {
        for (row, command) in &plan.steps {
            let metadata = Metadata {
                recorded_at: Utc::now(),
                actor: Actor::Steward(ctx.steward.clone()),
                request_id: format!("import-{request}-row-{row}"),
                client_request_id: None,
                idempotency: None,
            };
            if let Err(e) = execute(commands, country, command.clone(), &metadata).await {
                failed.push(format!("{}: row {row} ({country}): {e}", ctx.file));
                break;
            }
        }
    }
    failed
}

/// What [`propose`] did: the proposals made (`CC: id`), and what failed.
#[derive(Debug, Default)]
pub struct Proposed {
    /// One line per proposal: the Party and the proposal's id.
    pub proposals: Vec<String>,
    /// One line per Party whose changes could not be proposed or written.
    pub failed: Vec<String>,
}

/// Under four-eyes review (`BASEL_REVIEW=required`): each Party's planned
/// changes become **one proposal** (`ReviewCommand::ProposeBatch`, or a
/// single change), attributed to the importing steward, so a reviewer
/// approves or rejects a Party's rows together and a Party's later rows
/// are decided on the record as its earlier ones leave it. A Party not yet
/// in the store is registered at once, as `POST /ca` does under review
/// (there is no record to review a change of).
pub async fn propose(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    request: uuid::Uuid,
    plans: &[(CountryCode, Plan)],
) -> Proposed {
    let mut done = Proposed::default();
    for (country, plan) in plans {
        if plan.steps.is_empty() {
            continue;
        }
        let metadata = Metadata {
            recorded_at: Utc::now(),
            actor: Actor::Steward(ctx.steward.clone()),
            request_id: format!("import-{request}-party-{country}"),
            client_request_id: None,
            idempotency: None,
        };
        let registers = plan
            .steps
            .iter()
            .any(|(_, c)| matches!(c, AuthorityCommand::Register(_)));
        if registers {
            let one = [(country.clone(), plan.clone())];
            done.failed
                .extend(write(commands, ctx, request, &one).await);
            continue;
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let review = ReviewCommand::ProposeBatch {
            proposal_id: id.clone(),
            commands: plan.steps.iter().map(|(_, c)| c.clone()).collect(),
        };
        match commands.review(country, review, &metadata, None).await {
            Ok(_) => done.proposals.push(format!("{country}: {id}")),
            Err(e) => done.failed.push(format!("{}: {country}: {e}", ctx.file)),
        }
    }
    done
}

async fn execute(
    commands: &AuthorityCommands,
    country: &CountryCode,
    command: AuthorityCommand,
    metadata: &Metadata,
) -> Result<(), CommandError<AuthorityError>> {
    match command {
        AuthorityCommand::Register(c) => commands.register(c, metadata).await.map(|_| ()),
        AuthorityCommand::SubmitVerification(c) => commands
            .submit_verification(country, c, metadata)
            .await
            .map(|_| ()),
        AuthorityCommand::AddContact(c) => {
            commands.add_contact(country, c, metadata).await.map(|_| ())
        }
        AuthorityCommand::RemoveContact(c) => commands
            .remove_contact(country, c, metadata)
            .await
            .map(|_| ()),
        AuthorityCommand::DesignatePrimary(c) => commands
            .designate_primary(country, c, metadata)
            .await
            .map(|_| ()),
        AuthorityCommand::Retire(c) => commands.retire(country, c, metadata).await.map(|_| ()),
        AuthorityCommand::Assign(steward) => commands
            .assign(country, steward, metadata)
            .await
            .map(|_| ()),
        AuthorityCommand::Review(c) => commands
            .review(country, c, metadata, None)
            .await
            .map(|_| ()),
        AuthorityCommand::SubmitVerificationWithEvidence(c, files) => commands
            .submit_verification_with_evidence_at(country, c, files, metadata, None)
            .await
            .map(|_| ()),
    }
}

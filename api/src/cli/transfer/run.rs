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

use super::check::{groups, party_of_group, Blame};
use super::plan::{plan, Context, Plan, Status};
use super::read::Rows;
use crate::node::runtime::Runtime;

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
    fn of(plans: &[(CountryCode, Plan)]) -> Self {
        let mut tally = Self::default();
        tally.add(plans);
        tally
    }

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
/// # Errors
/// When a row is invalid or would be refused (every problem listed, nothing
/// imported), the steward is unknown or suspended, or the store fails.
pub async fn import(
    runtime: &Runtime,
    import: &Import<'_>,
    rows: &Rows,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let name = import.file;
    let steward = Slug::parse(import.steward).map_err(|e| anyhow!("--steward: {e}"))?;
    runtime.catch_up().await?;
    match projections::stewards::by_id(&runtime.read_db, steward.as_str()).await? {
        Some(s) if s.status == "active" => {}
        Some(_) => bail!("--steward: steward {steward} is suspended"),
        None => bail!("--steward: no steward {steward} is enrolled (see `basel steward enrol`)"),
    }
    let commands = AuthorityCommands::new(&runtime.backend);
    let ctx = Context {
        file: name,
        steward,
        today: Utc::now().date_naive(),
        max_contacts: runtime.max_contacts,
    };
    let (plans, problems, tally) = if import.dry_run {
        // Reported as each Party is planned; no plan is kept.
        let mut tally = Tally::default();
        let problems = plan_each(&commands, &ctx, rows, |country, plan| {
            let one = [(country, plan)];
            tally.add(&one);
            report(name, &one, true, &mut *out)
        })
        .await?;
        (Vec::new(), problems, tally)
    } else {
        let (plans, problems) = prepare(&commands, &ctx, rows).await?;
        report(name, &plans, false, out)?;
        let tally = Tally::of(&plans);
        (plans, problems, tally)
    };
    if !problems.is_empty() {
        writeln!(out, "Nothing imported from {name}: {tally}.")?;
        bail!(
            "{} problem(s), nothing imported:\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
    if import.dry_run {
        writeln!(out, "Dry run of {name}, nothing written: {tally}.")?;
        return Ok(());
    }
    if import.review {
        let proposed = propose(&commands, &ctx, &plans).await;
        runtime.wake.notify_one();
        for line in &proposed.proposals {
            writeln!(
                out,
                "{name}: proposed {line} (awaiting another steward's review)"
            )?;
        }
        if !proposed.failed.is_empty() {
            bail!(
                "{} Party(ies) could not be proposed:\n{}",
                proposed.failed.len(),
                proposed.failed.join("\n")
            );
        }
        writeln!(
            out,
            "Proposed {name} for review (BASEL_REVIEW=required): {} proposal(s), nothing else written.",
            proposed.proposals.len()
        )?;
        return Ok(());
    }
    let failed = write(&commands, &ctx, &plans).await;
    runtime.wake.notify_one();
    if !failed.is_empty() {
        writeln!(
            out,
            "Imported {name} in part: {} row(s) failed while writing.",
            failed.len()
        )?;
        bail!(
            "{} row(s) failed while writing:\n{}",
            failed.len(),
            failed.join("\n")
        );
    }
    writeln!(out, "Imported {name}: {tally}.")?;
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
    let problems = plan_each(commands, ctx, rows, |country, plan| {
        plans.push((country, plan));
        Ok(())
    })
    .await?;
    Ok((plans, problems))
}

/// [`prepare`], a Party at a time: each Party's lines are found once
/// ([`groups`]), checked, planned against its state, and handed to `each`
/// before the next Party is read, so a caller that keeps nothing of a plan
/// (a dry run's report) holds one Party at a time. Returns every problem.
///
/// # Errors
/// When the store cannot be read, or `each` fails.
pub async fn plan_each(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    rows: &Rows,
    mut each: impl FnMut(CountryCode, Plan) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<String>> {
    let mut blame = Blame {
        name: ctx.file,
        problems: rows.problems.clone(),
    };
    for group in groups(rows) {
        let Some(party) = party_of_group(rows, &group, &mut blame) else {
            continue;
        };
        let state = commands
            .current(&party.country)
            .await
            .map_err(|e| anyhow!("{e}"))?;
        let plan = plan(&party, &state, ctx, &mut blame);
        each(party.country, plan)?;
    }
    Ok(blame.problems)
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

/// Writes every Party's commands in order; a Party whose command fails (the
/// store changed since it was read) stops there. Returns what failed.
pub async fn write(
    commands: &AuthorityCommands,
    ctx: &Context<'_>,
    plans: &[(CountryCode, Plan)],
) -> Vec<String> {
    let request = uuid::Uuid::new_v4();
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
    plans: &[(CountryCode, Plan)],
) -> Proposed {
    let request = uuid::Uuid::new_v4();
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
            done.failed.extend(write(commands, ctx, &one).await);
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

// The names of the headless commands and their `--help` texts; docs/usage/cli.md
// quotes each text verbatim (test/integration/headless-usage.test.ts checks).
import { HOST_HELP } from './host-args.js';

export const COMMAND_NAMES = [
  'run',
  'reply',
  'ls',
  'inbox',
  'watch',
  'mcp',
  'answer',
  'approve',
  'deny',
  'show',
  'link',
  'ci-fixer',
  'diff',
  'merge',
  'rebase',
  'cancel',
  'publish',
  'threads',
  'gc',
  'doctor',
  'host',
] as const;

const EXIT_LINE =
  'Exit codes: 0 done, 1 the agent or a git step failed, 2 usage error,\n3 the agent asked questions, 4 timed out, 5 held at a budget limit,\n130 interrupted.';
const APPROVE_EXIT =
  "Exit codes: 0 done, 1 no such request waits (unknown, already decided or\nexpired) or nothing is held or waits, or the held prompt's turn failed,\n2 usage error (a usage limit too), 3 the agent asked questions, 5 held again\nat another limit, 130 interrupted.";
const DENY_EXIT =
  'Exit codes: 0 done, 1 no such request waits (unknown, already decided or\nexpired) or nothing is held or waits, 2 usage error.';
const LAND_EXIT =
  'Exit codes: 0 done, 1 refused or a git step failed (the session keeps its\nwork), 2 usage error, 5 held behind a prompt at a budget limit,\n130 interrupted.';
const TURN_OPTIONS = `  --mode MODE         auto-edit, read-only or plan: what the agent may do
  --output FORMAT     text (default), json, stream-json or diff
  --json              The same as --output json
  --timeout DURATION  Stop the turn after DURATION (90s, 10m, 1h) and exit 4
  --progress          Show progress on standard error even when it is not a terminal`;

/** `grove <command> --help`; docs/usage/cli.md quotes each one verbatim (a test checks). */
export const COMMAND_HELP: Record<(typeof COMMAND_NAMES)[number], string> = {
  run: `Usage: grove run [-C DIR] [--agent ID] [--model M] [--reasoning L] [-n N] [--agents LIST] [--host NAME] [--issue N|URL] [--memory-max SIZE] [--tasks-max N] [--mode MODE] [--output FORMAT] [--json] [--timeout DURATION] [--progress] [PROMPT]

Creates a session exactly as 'a' does in the TUI (worktree, branch grove/<id>,
.worktreeinclude, setup command), runs one turn, prints the result and exits.
The prompt is PROMPT, or standard input when PROMPT is '-' or absent and
standard input is not a terminal. --mode sets the session's permission mode
(default auto-edit). With --issue the session starts from an open issue of the
project's GitHub repository: its title, body and last comments go into the
prompt as quoted data (after PROMPT, if given), its pull request says
Closes #N, and its branch carries a slug of the title.

Options:
  -C DIR              The repository (default: the current directory)
  --agent ID          claude, codex, gemini, or an ACP agent's name in
                      GROVE_HOME/agents.json (default: the project's main model)
  --model M           The agent's model (default: the project's main model)
  --reasoning L       The reasoning level (default: the project's main model)
  -n N                Best of N: run the prompt in N sessions, then the check
                      command in each and a judge that ranks them (prints the
                      ranking; see docs/usage/parallel.md)
  --agents LIST       With -n: the variants' agents, cycled (claude,codex:gpt-5.5)
  --host NAME         Run the session's agent on host NAME (grove host add;
                      see docs/usage/hosts.md). Without it the project's
                      default host (Settings); --host local runs it on this
                      machine despite that default; --host auto on this
                      machine or a host with room, chosen by its first turn.
                      With -n, every variant runs there (auto: each placed
                      by its own first turn)
  --issue N|URL       Start from issue N (or its URL) of the project's GitHub
                      repository (see docs/usage/github.md)
  --memory-max SIZE   The most memory the session's agent tree may use (4G,
                      512M; none: no limit), over the project's setting
  --tasks-max N       The most processes and threads it may have at once
                      (512; none: no limit); see docs/usage/capacity.md
${TURN_OPTIONS}

${EXIT_LINE}`,
  reply: `Usage: grove reply ID [--mode MODE] [--output FORMAT] [--json] [--timeout DURATION] [--progress] [--threads] [PROMPT]

Sends a follow-up prompt to session ID and runs the turn; answers its questions
too. The prompt is PROMPT, or standard input when PROMPT is '-' or absent and
standard input is not a terminal. --mode changes the session's permission
mode first; the session keeps it. With --threads the prompt is the pull
request's open review threads (file, line, comments); after the turn Grove
pushes and replies on each thread with what changed and the commit.

Options:
${TURN_OPTIONS}
  --threads           Send the pull request's open review threads as the turn

${EXIT_LINE}`,
  ls: `Usage: grove ls [-C DIR] [--json] [--all]

Lists the project's sessions, newest first: the active ones, or all of them
(the archive too) with --all. A line is the session's id, status, size,
active time, agent/model (with @HOST for a session on a host) and title.

Options:
  -C DIR  The repository (default: the current directory)
  --json  Print a JSON array
  --all   Include merged, done and canceled sessions

Exit codes: 0 done, 1 the folder is not in a git repository, 2 usage error.`,
  inbox: `Usage: grove inbox [--json]

Lists everything waiting on you, across every project, oldest first: agent
requests held for your approval, agent questions, prompts held at a budget
limit or waiting for a usage limit, conflicts, failed turns and git steps,
and review threads to answer.

Options:
  --json  Print a JSON array

Exit codes: 0 done, 2 usage error.`,
  watch: `Usage: grove watch [--json]

Follows every project's sessions and inbox, and prints each change as it
happens: a session created, a status changed, a turn finished, an item waiting
on you added or handled (by any Grove process). It first prints the items
already waiting, then a ready line, and runs until Ctrl+C, SIGTERM or the
reader closing the output.

Options:
  --json  Print one JSON object per line (NDJSON)

Exit codes: 0 stopped by Ctrl+C or SIGTERM, 1 the store could not be read,
141 the reader closed the output.`,
  mcp: `Usage: grove mcp [-C DIR]

Runs an MCP server on standard input and output for an agent CLI (Claude Code,
Codex, Gemini CLI) to list, start, follow and answer the Grove sessions of the
project in DIR (default: the current directory): grove_list_sessions,
grove_show_session, grove_read_diff, grove_read_inbox, grove_start_session,
grove_reply, grove_wait_session. Merge, publish, cancel and approvals are not
tools. Turns it starts run in this process; it ends when the client closes the
stream, once they are over. Add it to an agent, e.g.:
  claude mcp add grove -- grove mcp -C /path/to/repo

Options:
  -C DIR  The repository (default: the current directory)

Exit codes: 0 the client closed the stream, 1 the server could not start,
2 usage error.`,
  answer: `Usage: grove answer ITEM [--mode MODE] [--output FORMAT] [--json] [--timeout DURATION] [--progress] [TEXT...]

Answers the questions an agent asked (a question in grove inbox) and runs
the turn, as grove reply does. ITEM is the item's id as grove inbox --json
gives it (question:ID) or the session's ID. The answer is TEXT (its words
joined by spaces), or standard input when TEXT is '-' or absent and standard
input is not a terminal. Refused (exit 2), with nothing sent, when no
question of the session waits (answered already, or another kind of item).

Options:
${TURN_OPTIONS}

${EXIT_LINE}`,
  approve: `Usage: grove approve ITEM [--once|--session|--allow-list] [--json]

Approves a request an agent CLI holds for you (an approval in grove inbox):
once (the default), or for the rest of the session (the same command in the
same folder, an edit of the same files, or the same host and port, then
passes without asking). A network request can also be added to the allowed
hosts (agents.network.allow), so later sessions reach that host too.
ITEM is the request's id as grove inbox shows it (8 characters, or the
item's id approval:…). The waiting turn goes on. On a confirmation (an MCP
client's request, confirm:…), confirms it: the grove mcp that asked does it.
On a prompt held at a budget limit (budget:ID, ID the session's), does what
yes does in the TUI: raises the limit by another full budget on top of what
is spent (the session's own, or the project's setting) and runs the held
prompt here, to the end of its turn. A prompt that waits for its agent's
usage limit (usage:ID) cannot be approved (exit 2): the limit is the
provider's; it says when it lifts, and grove deny usage:ID drops the prompt.

Options:
  --once     Approve this request only (the default)
  --session  Approve it and the same request again in this session
  --allow-list  A network request: approve it and add its host to
             agents.network.allow
  --json     Print the decision as a JSON object (see docs/usage/cli.md)

${APPROVE_EXIT}`,
  deny: `Usage: grove deny ITEM [--json]

Denies a request an agent CLI holds for you (an approval in grove inbox).
ITEM is the request's id as grove inbox shows it. The waiting turn goes on
without it. On a confirmation (an MCP client's request, confirm:…), refuses
it: nothing is done. On a prompt held at a budget limit (budget:ID), or one
that waits for its agent's usage limit to lift (usage:ID), drops that
prompt: it is never sent; the session and the rest of its work stay.

Options:
  --json  Print the decision as a JSON object (see docs/usage/cli.md)

${DENY_EXIT}`,
  show: `Usage: grove show ID [--json]

Shows a session: status, branch, worktree, pull request, transcript (tool calls folded
to one line), summary, and the agent's open questions with their options.

Options:
  --json  Print the JSON object of 'grove run --output json' plus the transcript

Exit codes: 0 done, 2 usage error (an unknown or ambiguous ID too).`,
  link: `Usage: grove link ID (--issue N|URL | --unlink) [--json]

Links session ID to an open issue of the project's GitHub repository (N, or
the issue's URL), or takes the link away. A linked session shows the issue,
and its pull request says Closes #N (the next publish adds it).

Options:
  --issue N|URL  The issue to link (refused: a pull request, a closed or
                 missing issue, another repository's URL)
  --unlink       Take the session's issue link away
  --json         Print {"sessionId": ..., "issue": {number, title, url} or null}

Exit codes: 0 done, 1 the issue could not be read or was refused (the link is
unchanged), 2 usage error (an unknown or ambiguous ID too).`,
  'ci-fixer': `Usage: grove ci-fixer ID on|off|project [--json]

Sets session ID's own CI fixer switch over the project's CI fixer setting
(github.ciFixer): on, and a new failing run of its pull request gets a turn
with the failing checks' log tails whose result Grove pushes to the pull
request's branch on its own; off, never for this session; project, the
project's setting again. The transcript says what now applies.

Options:
  --json  Print {"sessionId": ..., "ciFixer": "on", "off" or null, "on": true|false}

Exit codes: 0 done, 2 usage error (an unknown or ambiguous ID too).`,
  diff: `Usage: grove diff ID [--json]

Prints the session's diff against its base branch, uncommitted and untracked
files included.

Options:
  --json  Print a JSON object {sessionId, branch, baseBranch, files, patch}

Exit codes: 0 done, 1 the diff could not be made (the base branch is gone,
the worktree could not be restored), 2 usage error.`,
  merge: `Usage: grove merge ID [--progress] [--acknowledge] [--json]

Rebases the session onto its base branch (conflicts go to the agent) and
squash-merges it in the main checkout as one commit, as 'm' does. Prints the
new status and commit.

Options:
  --progress     Show progress on standard error even when it is not a terminal
  --acknowledge  You have read what Grove put back after the agent changed git
                 state outside its worktree (grove show says it): merge anyway
  --json         Print a JSON object {sessionId, status, branch, baseBranch,
                 commit, remoteBranch, pullRequest}

${LAND_EXIT}`,
  rebase: `Usage: grove rebase ID [--progress] [--json]

Rebases the session branch onto its base branch (conflicts go to the agent),
as 'r' does.

Options:
  --progress  Show progress on standard error even when it is not a terminal
  --json      Print the JSON object of grove merge --json

${LAND_EXIT}`,
  cancel: `Usage: grove cancel ID [--yes] [--json]

Cancels the session: stops the agent and removes the worktree. Uncommitted work
is committed to the branch first, and the branch is kept when it holds work.
When there is work (or a running turn), it only says what would happen and
exits 2, unless --yes is given.

Options:
  -y, --yes  Cancel even though the session holds work (it stays on the branch)
  --json     Print a JSON object {sessionId, status, keptBranch}

Exit codes: 0 canceled, 1 the session cannot be canceled (finished, merging),
2 usage error, or it holds work and --yes was not given.`,
  publish: `Usage: grove publish ID [--branch NAME] [--progress] [--acknowledge] [--json]

Pushes the session branch and opens (or refreshes) its draft pull request on
GitHub, as 'p' does. Prints the status and the pull request's address.

Options:
  --branch NAME  The remote branch (default: the session branch)
  --progress     Show progress on standard error even when it is not a terminal
  --acknowledge  You have read what Grove put back after the agent changed git
                 state outside its worktree (grove show says it): publish anyway
  --json         Print the JSON object of grove merge --json

${LAND_EXIT}`,
  threads: `Usage: grove threads ID [--json] [--resolve]

Lists the unresolved review threads of the session's pull request, fetched
from GitHub now: file and line, author, the first line of the first comment,
the number of replies, and Grove's progress (sent to the agent, answered).
'grove reply ID --threads' sends the open ones to the agent. When GitHub
cannot be asked, says why and lists the threads as last fetched (exit 1).

Options:
  --json     Print a JSON array of {id, path, line, startLine, outdated, state, repliedCommit, comments}
  --resolve  Resolve on GitHub the threads Grove answered, then list the rest

Exit codes: 0 done, 1 GitHub could not be asked or there is no pull request,
2 usage error.`,
  gc: `Usage: grove gc [-C DIR] [--days N] [--dry-run] [--json]

Reclaims disk: removes the worktrees of the project's Done and Canceled
sessions last changed N or more days ago. Uncommitted and untracked work in
a worktree is first kept as a commit at refs/grove/snapshots/<id>; a worktree
whose work cannot be kept (a rebase half done, a submodule with changes, a
locked worktree) is left alone, with the reason. Prints each worktree, the
space reclaimed and the command that restores each snapshot. Branches are
not touched. A shared folder linked into the main checkout counts nothing
and only the link goes, never the folder it points to. Sessions of the
project that ran on a host and ended: their worktree, branch and run folders
there are removed too, when that waits for the host (see docs/usage/hosts.md).

Options:
  -C DIR     The repository (default: the current directory)
  --days N   Only sessions last changed N or more days ago (default: the
             'Reclaim after' setting, 14)
  --dry-run  List what would be removed and kept, and change nothing
  --json     Print a JSON object {dryRun, days, bytes, items, hosts} (each
             item: {sessionId, status, title, worktree, action, bytes,
             snapshot, reason, shared: [{path, kind, bytes}]}; each of hosts:
             {sessionId, host, action, detail})

Exit codes: 0 done, 1 a worktree was left in place (see why), 2 usage error.`,
  doctor: `Usage: grove doctor [--json]

Checks what Grove depends on and says how to fix each problem: Node.js and
better-sqlite3, git, the agent CLIs (installed, version, signed in), the
GitHub token's source, GROVE_HOME (permissions, free disk), the database
(quick_check, schema version), the sandbox engine, tmux and the clipboard.
Needs no repository and changes nothing.

Options:
  --json  Print a JSON array of {check, status, detail, fix}

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 usage error.`,
  host: HOST_HELP,
};

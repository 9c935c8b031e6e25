import {
  PERMISSION_MODES,
  parsePermissionModeFlag,
  permissionModeFlag,
  permissionModeLabel,
  type PermissionMode,
} from './permission-mode.js';
import { parseCiFixerSwitch } from './ci-fixer.js';
import { LOCAL_HOST_NAME, hostChoice } from './host.js';
import { PROVIDERS, agentName, isAcpAgentId, providerInfo, type ProviderId } from './providers.js';

/**
 * The composer's slash commands: `/model sonnet`, `/mode plan`, `/clear`.
 * A prompt that starts with `/word` (a word of letters, then a space or the
 * end) is a command; `/usr/bin/env …` is not, it is sent as a prompt.
 */
export type SlashName =
  | 'model'
  | 'agent'
  | 'reasoning'
  | 'mode'
  | 'host'
  | 'ci-fixer'
  | 'review'
  | 'diff'
  | 'merge'
  | 'publish'
  | 'clear';

/** What a command's argument is chosen from. */
type ArgKind = 'model' | 'agent' | 'reasoning' | 'mode' | 'host' | 'ciFixer';

export interface SlashCommand {
  readonly name: SlashName;
  readonly description: string;
  readonly arg?: ArgKind;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'model', description: "Change this session's model (from the next turn)", arg: 'model' },
  {
    name: 'agent',
    description: "Change this session's agent CLI (a new conversation)",
    arg: 'agent',
  },
  { name: 'reasoning', description: "Change this session's reasoning level", arg: 'reasoning' },
  { name: 'mode', description: 'Permission mode: auto-edit, read-only or plan', arg: 'mode' },
  {
    name: 'host',
    description: 'Where this new session runs: local, auto or a host',
    arg: 'host',
  },
  {
    name: 'ci-fixer',
    description: "This session's CI fixer: on, off, or the project's setting",
    arg: 'ciFixer',
  },
  { name: 'review', description: 'Regenerate the focused review' },
  { name: 'diff', description: 'Show the diff' },
  { name: 'merge', description: 'Add to the merge queue' },
  { name: 'publish', description: 'Publish as a pull request' },
  { name: 'clear', description: 'A fresh agent context on the same worktree' },
];

/** What the session offers as arguments: its agent decides the models and levels. */
export interface SlashContext {
  /** The session's agent (a provider id). */
  readonly agent: string;
  /** The agents there are to choose from besides the built-in ones (the ACP agents of agents.json, as `acp:` ids). */
  readonly acpAgents?: readonly string[];
  /** The hosts there are (grove host add), by name: `/host` offers them after `local`. */
  readonly hosts?: readonly string[];
  /** True before the session's first prompt: only then does the picker offer `/host` (a host is set once). */
  readonly newSession?: boolean;
}

/** The ACP agents among detected agents, for SlashContext.acpAgents. */
export function acpAgentIds(agents: readonly { readonly id: string }[] | null): string[] {
  return (agents ?? []).map((a) => a.id).filter(isAcpAgentId);
}

/** A resolved command, ready to run. */
export type SlashAction =
  | { readonly name: 'model'; readonly model: string }
  | { readonly name: 'agent'; readonly agent: ProviderId }
  | { readonly name: 'reasoning'; readonly reasoning: string }
  | { readonly name: 'mode'; readonly mode: PermissionMode }
  /** `host: null` is this machine. */
  | { readonly name: 'host'; readonly host: string | null }
  /** `own: null` is the project's setting. */
  | { readonly name: 'ci-fixer'; readonly own: 'on' | 'off' | null }
  | { readonly name: 'review' | 'diff' | 'merge' | 'publish' | 'clear' };

export type SlashParse =
  /** Not a command: send it as a prompt. */
  | { readonly kind: 'prompt' }
  | { readonly kind: 'run'; readonly action: SlashAction }
  /** A command that cannot run as typed; `message` says why (the text is kept). */
  | { readonly kind: 'error'; readonly message: string };

const COMMAND = /^\/([a-z][a-z-]*)(?:[ \t]+(.*))?$/s;

/** The typed `/name` and its argument, or null when the text is not a command. */
export function slashParts(text: string): { readonly name: string; readonly arg: string } | null {
  const match = COMMAND.exec(text.trim());
  if (!match) return null;
  return { name: match[1] ?? '', arg: (match[2] ?? '').trim() };
}

/** The values an argument may take, with a short description each. */
export function argChoices(
  kind: ArgKind,
  context: SlashContext,
): readonly { readonly value: string; readonly description: string }[] {
  switch (kind) {
    case 'model':
      return (providerInfo(context.agent)?.models ?? []).map((value) => ({
        value,
        description: `${context.agent} model`,
      }));
    case 'agent':
      // An ACP agent by the name the person gave it in agents.json.
      return [
        ...PROVIDERS.map((p) => ({ value: p.id, description: p.name })),
        ...(context.acpAgents ?? []).map((id) => ({
          value: agentName(id),
          description: 'ACP agent (agents.json)',
        })),
      ];
    case 'reasoning':
      return (providerInfo(context.agent)?.reasoningLevels ?? []).map((value) => ({
        value,
        description: 'reasoning level',
      }));
    case 'mode':
      return PERMISSION_MODES.map((mode) => ({
        value: permissionModeFlag(mode),
        description: permissionModeLabel(mode),
      }));
    case 'host':
      return [
        { value: LOCAL_HOST_NAME, description: 'this machine' },
        ...((context.hosts ?? []).length > 0
          ? [{ value: 'auto', description: 'this machine or a host with room, at the first turn' }]
          : []),
        ...(context.hosts ?? []).map((name) => ({ value: name, description: 'SSH host' })),
      ];
    case 'ciFixer':
      return [
        { value: 'on', description: "fix this session's failing CI, pushing on its own" },
        { value: 'off', description: 'never for this session' },
        { value: 'project', description: "the project's CI fixer setting" },
      ];
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** Parses the composer's text as a command. */
export function parseSlash(text: string, context: SlashContext): SlashParse {
  const parts = slashParts(text);
  if (!parts) return { kind: 'prompt' };
  const command = SLASH_COMMANDS.find((c) => c.name === parts.name);
  if (!command)
    return {
      kind: 'error',
      message: `Unknown command /${parts.name}. Commands: ${SLASH_COMMANDS.map((c) => `/${c.name}`).join(' ')}`,
    };
  if (!command.arg) {
    if (parts.arg !== '') return { kind: 'error', message: `/${command.name} takes no argument.` };
    return { kind: 'run', action: { name: command.name as 'review' } };
  }
  const choices = argChoices(command.arg, context).map((c) => c.value);
  if (command.arg === 'host' && (context.hosts ?? []).length === 0 && parts.arg !== LOCAL_HOST_NAME)
    return {
      kind: 'error',
      message: `/host: there are no hosts yet (add one with grove host add NAME DEST); ${LOCAL_HOST_NAME} is this machine.`,
    };
  if (parts.arg === '')
    return { kind: 'error', message: `/${command.name} needs one of: ${choices.join(', ')}` };
  if (!choices.includes(parts.arg))
    return {
      kind: 'error',
      message: `/${command.name}: '${parts.arg}' is not one of ${choices.join(', ')}`,
    };
  switch (command.arg) {
    case 'model':
      return { kind: 'run', action: { name: 'model', model: parts.arg } };
    case 'agent':
      return {
        kind: 'run',
        action: {
          name: 'agent',
          agent: ((context.acpAgents ?? []).find((id) => agentName(id) === parts.arg) ??
            parts.arg) as ProviderId,
        },
      };
    case 'reasoning':
      return { kind: 'run', action: { name: 'reasoning', reasoning: parts.arg } };
    case 'mode': {
      const mode = parsePermissionModeFlag(parts.arg);
      return mode
        ? { kind: 'run', action: { name: 'mode', mode } }
        : { kind: 'error', message: `/mode: unknown mode '${parts.arg}'` };
    }
    case 'host':
      return { kind: 'run', action: { name: 'host', host: hostChoice(parts.arg) } };
    case 'ciFixer':
      return {
        kind: 'run',
        action: { name: 'ci-fixer', own: parseCiFixerSwitch(parts.arg)?.own ?? null },
      };
    default: {
      const never: never = command.arg;
      return never;
    }
  }
}

/** One line of the picker: what Tab puts in the composer, and what it does. */
export interface SlashItem {
  /** The composer's text after accepting the item (`/model ` or `/model opus`). */
  readonly text: string;
  readonly label: string;
  readonly description: string;
  /** True when the accepted text is a complete command (Enter runs it). */
  readonly complete: boolean;
}

/**
 * The picker for what is typed so far: commands while the name is typed,
 * argument values after `/name `; null when the text is no command in the
 * making (the picker closes).
 */
export function slashCompletions(text: string, context: SlashContext): readonly SlashItem[] | null {
  const nameOnly = /^\/([a-z-]*)$/.exec(text);
  if (nameOnly) {
    const typed = nameOnly[1] ?? '';
    return SLASH_COMMANDS.filter(
      (c) => c.name.startsWith(typed) && (c.name !== 'host' || context.newSession === true),
    ).map((c) => ({
      text: c.arg ? `/${c.name} ` : `/${c.name}`,
      label: `/${c.name}`,
      description: c.description,
      complete: !c.arg,
    }));
  }
  const withArg = /^\/([a-z-]+) ([^\s]*)$/.exec(text);
  if (!withArg) return null;
  const command = SLASH_COMMANDS.find((c) => c.name === withArg[1]);
  if (!command?.arg) return null;
  const typed = withArg[2] ?? '';
  return argChoices(command.arg, context)
    .filter((choice) => choice.value.startsWith(typed))
    .map((choice) => ({
      text: `/${command.name} ${choice.value}`,
      label: choice.value,
      description: choice.description,
      complete: true,
    }));
}

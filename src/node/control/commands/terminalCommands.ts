/**
 * Switchboard's own terminal commands under the claws framing: readScreen, wait, resize, signal,
 * rename, and the audit log. They name their terminal with `terminalId` (the request's `id` is
 * accepted as well, as for claws commands).
 */
import { ControlConstants } from '../../../common/constants.ts';
import { type ControlCommand, defineCommand } from '../commandRegistry.ts';
import { foregroundProcessGroup } from '../foregroundProcess.ts';
import { ControlError } from '../protocol.ts';
import { audit, type ControlServices, requireRunning, requireTerminal } from './services.ts';

export function terminalCommands(services: ControlServices): ControlCommand[] {
  return [
    defineCommand('readScreen', async (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      const scrollback = params.scrollback ?? false;
      let screen;
      try {
        screen = await session.readScreen({ scrollback: scrollback !== false && scrollback !== 0 });
      } catch (error) {
        throw new ControlError(`cannot read the screen of terminal ${session.id}: ${(error as Error).message}`);
      }
      const keep = typeof scrollback === 'number' ? screen.rows + scrollback : screen.lines.length;
      return {
        lines: screen.lines.length > keep ? screen.lines.slice(screen.lines.length - keep) : screen.lines,
        cursor: { x: screen.cursorX, y: screen.cursorY },
        altScreen: screen.altScreen,
        bracketedPaste: screen.bracketedPaste,
        cols: screen.cols,
        rows: screen.rows,
      };
    }),

    defineCommand('wait', async (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      let pattern: RegExp | undefined;
      if (params.pattern !== undefined) {
        try {
          pattern = new RegExp(params.pattern, params.flags ?? '');
        } catch (error) {
          throw new ControlError(`pattern: invalid regular expression: ${(error as Error).message}`, 'INVALID_PARAMS');
        }
      }
      return services.waiter.wait(session, {
        pattern,
        exit: params.exit,
        idleMs: params.idleMs,
        prompt: params.prompt,
        agentState: params.agentState === undefined ? undefined : [params.agentState].flat(),
        port: params.port,
        since: params.since,
        timeoutMs: params.timeoutMs ?? ControlConstants.waitDefaultTimeoutMs,
      });
    }),

    defineCommand('resize', (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      requireRunning(session);
      audit(services, context, session.id, `${params.cols}x${params.rows}`);
      session.resize(params.cols, params.rows);
      return { cols: params.cols, rows: params.rows };
    }),

    defineCommand('signal', async (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      requireRunning(session);
      const shellPid = session.info.pid;
      if (shellPid === null) throw new ControlError(`terminal ${session.id} has no process`, 'TERMINAL_EXITED');
      const group = await foregroundProcessGroup(shellPid);
      audit(services, context, session.id, params.signal);
      try {
        process.kill(-group, params.signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        // The foreground job ended between the lookup and the kill: nothing left to signal.
        throw new ControlError(`terminal ${session.id}: the foreground process group ${group} is gone`, 'NOT_FOUND');
      }
      return { signal: params.signal, processGroup: group };
    }),

    defineCommand('rename', (params, context) => {
      const session = requireTerminal(services, params.terminalId, context);
      const renamed = services.ptyHost.rename(session.id, params.name);
      audit(services, context, session.id, `renamed to ${renamed.info.name}`);
      return { name: renamed.info.name };
    }),

    defineCommand('audit', (params) => ({
      entries: services.audit.query({
        limit: params.limit,
        peer: params.peer,
        terminalId: params.terminalId === undefined ? undefined : String(params.terminalId),
      }),
    })),
  ];
}

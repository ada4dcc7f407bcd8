import { memo, useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { useObservable } from '../../app/observable.ts';
import { HistoryUiConstants } from './historyConstants.ts';
import { formatClock } from './historyFormat.ts';
import { NextMarkIcon, PauseIcon, PlayIcon, PreviousMarkIcon } from './historyIcons.tsx';
import type { CommandMark } from './replayTimeline.ts';
import type { SessionReplay } from './sessionReplay.ts';

/** The replay position, redrawn every frame while playing and on every seek. */
function usePlaybackPosition(replay: SessionReplay): number {
  const playback = useObservable(replay.playback);
  const [position, setPosition] = useState(() => replay.position);
  useEffect(() => {
    setPosition(replay.position);
    if (playback.state !== 'playing') return;
    let frame = requestAnimationFrame(function tick() {
      setPosition(replay.position);
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [replay, playback]);
  return position;
}

/** Play/pause, previous/next command, the clock, the timeline with command marks, speed and skip idle. */
export function ReplayControls({ replay }: { replay: SessionReplay }) {
  const playback = useObservable(replay.playback);
  const position = usePlaybackPosition(replay);
  const playing = playback.state === 'playing';

  return (
    <div className="replay-controls" role="group" aria-label="Replay" data-replay-state={playback.state}>
      <Timeline replay={replay} position={position} />
      <div className="replay-buttons">
        <button
          type="button"
          className="replay-play"
          aria-label={playing ? 'Pause' : 'Play'}
          title={playing ? 'Pause (Space)' : playback.state === 'ended' ? 'Replay from the start (Space)' : 'Play (Space)'}
          onClick={() => replay.toggle()}
        >
          {playing ? <PauseIcon /> : <PlayIcon />}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label="Previous command"
          title="Previous command ([)"
          onClick={() => replay.seekToAdjacentCommand(-1)}
        >
          <PreviousMarkIcon />
        </button>
        <button type="button" className="icon-button" aria-label="Next command" title="Next command (])" onClick={() => replay.seekToAdjacentCommand(1)}>
          <NextMarkIcon />
        </button>
        <span className="replay-clock" aria-label="Replay time">
          {formatClock(position)} <span className="replay-clock-total">/ {formatClock(playback.duration)}</span>
        </span>
        <span className="replay-spacer" />
        <div className="segmented replay-speed" role="radiogroup" aria-label="Replay speed">
          {HistoryUiConstants.replaySpeeds.map((speed) => (
            <button
              key={speed}
              type="button"
              role="radio"
              aria-checked={playback.speed === speed}
              className="segment"
              onClick={() => replay.setSpeed(speed)}
            >
              {speed}×
            </button>
          ))}
        </div>
        <label className="replay-skip" title={`Pauses longer than ${HistoryUiConstants.skipIdleCapMs / 1000} s play as ${HistoryUiConstants.skipIdleCapMs / 1000} s`}>
          <input
            type="checkbox"
            role="switch"
            className="switch"
            checked={playback.skipIdle}
            onChange={(event) => replay.setSkipIdle(event.target.checked)}
          />
          <span>Skip idle</span>
        </label>
      </div>
    </div>
  );
}

/**
 * The scrubber: a slider (click or drag to seek; arrows, Page keys, Home and End from the
 * keyboard) with one mark per command, green or red by exit code, each a button that seeks there.
 * A drag previews the position and seeks once, on release: every backwards seek redraws the
 * session from its start.
 */
function Timeline({ replay, position }: { replay: SessionReplay; position: number }) {
  const playback = useObservable(replay.playback);
  const marks = useObservable(replay.marks);
  const trackRef = useRef<HTMLDivElement>(null);
  const [scrub, setScrub] = useState<number | null>(null);
  const duration = playback.duration;
  const fraction = scrub ?? (duration > 0 ? Math.min(1, position / duration) : playback.state === 'ended' ? 1 : 0);
  const shownPosition = scrub === null ? position : scrub * duration;

  const fractionAt = (event: ReactPointerEvent) => {
    const rect = trackRef.current?.getBoundingClientRect();
    if (!rect || rect.width === 0) return 0;
    return Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width));
  };

  const onKeyDown = (event: ReactKeyboardEvent) => {
    const step = HistoryUiConstants.timelineStepMs;
    const targets: Record<string, number> = {
      ArrowLeft: position - step,
      ArrowDown: position - step,
      ArrowRight: position + step,
      ArrowUp: position + step,
      PageDown: position - duration / 10,
      PageUp: position + duration / 10,
      Home: 0,
      End: duration,
    };
    const target = targets[event.key];
    if (target === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    // The viewer maps the arrows too; the slider has handled them.
    event.stopPropagation();
    replay.seek(Math.min(duration, Math.max(0, target)));
  };

  return (
    <div className="replay-timeline">
      <div
        ref={trackRef}
        className="replay-track"
        role="slider"
        tabIndex={0}
        aria-label="Replay position"
        aria-valuemin={0}
        aria-valuemax={Math.round(duration)}
        aria-valuenow={Math.round(shownPosition)}
        aria-valuetext={`${formatClock(shownPosition)} of ${formatClock(duration)}`}
        onKeyDown={onKeyDown}
        onPointerDown={(event) => {
          if (event.button !== 0) return;
          event.currentTarget.setPointerCapture(event.pointerId);
          setScrub(fractionAt(event));
        }}
        onPointerMove={(event) => {
          if (scrub !== null) setScrub(fractionAt(event));
        }}
        onPointerUp={(event) => {
          if (scrub === null) return;
          const at = fractionAt(event);
          setScrub(null);
          replay.seekToFraction(at);
        }}
        onPointerCancel={() => setScrub(null)}
      >
        <div className="replay-rail">
          <div className="replay-progress" style={{ width: `${fraction * 100}%` }} />
        </div>
        <div className="replay-thumb" style={{ left: `${fraction * 100}%` }} />
      </div>
      <CommandMarks replay={replay} marks={marks} />
    </div>
  );
}

/**
 * One button per command (up to 5 000), laid out by fraction of the timeline. Memoized: the
 * timeline above it re-renders every frame while playing or scrubbing, and these depend only on
 * the marks (recomputed when the timeline changes, e.g. skip idle) and the replay they seek.
 */
const CommandMarks = memo(function CommandMarks({ replay, marks }: { replay: SessionReplay; marks: readonly CommandMark[] }) {
  return (
    <div className="replay-marks">
      {marks.map((mark) => (
        <button
          key={mark.commandId}
          type="button"
          className="replay-mark"
          data-outcome={mark.outcome}
          style={{ left: `${mark.fraction * 100}%` }}
          tabIndex={-1}
          aria-label={`Go to command: ${mark.commandLine}`}
          title={`${mark.commandLine}\n${mark.exitCode === null ? 'exit status unknown' : `exit ${mark.exitCode}`} · at ${formatClock(mark.playTime)}`}
          onClick={() => replay.seek(mark.playTime)}
        />
      ))}
    </div>
  );
});

// The web client's own types (src/web), for its JSDoc: `import('sannin-web').Position`.
// Kept here, outside src/web, so that they weigh nothing in the served pages.

import type { Schemas } from './client-types';
import type { createPlan } from '../../src/web/plan.js';

/** A seat: 'first', 'middle' or 'last' (the API's views give it as a plain string). */
export type Seat = string;
export type Kind = 'K' | 'R' | 'B' | 'G' | 'S' | 'N' | 'L' | 'P';
export interface Piece { owner: Seat; kind: Kind; promoted: boolean }
/** A position string (R32), parsed. */
export interface Position {
  cells: Map<string, Piece>;
  hands: Record<Seat, Partial<Record<Kind, number>>>;
  toMove: Seat | null;
  alliance: Seat[] | null;
  castling: string;
  ply: number;
}
/** A move string (R33), parsed. */
export type Move =
  | { kind: 'drop'; piece: Kind; to: string; text: string }
  | { kind: 'illuminate'; from: string; targets: string[]; text: string }
  | { kind: 'move'; from: string; to: string; promote: boolean; text: string };
/** A move the board offers (moves.js): a board move or a drop. */
export interface Candidate { text: string; from?: string; to: string; promote: boolean; drop?: Kind }
/** A move of a planned premove line, with the position before it. */
export type Planned = Candidate & { seat: Seat; before: Position };

/** What the board widget (board.js) shows. */
export interface BoardState {
  position: Position;
  view: string;
  mySeat?: string | null;
  selected?: string | null;
  dests?: Set<string>;
  targets?: Set<string>;
  lastMoves?: { from?: string; to: string; seat: string }[];
  inCheck?: Set<string>;
  names?: boolean;
  interactive?: boolean;
  /** No frame, the cells to the edges (phones). */
  compact?: boolean;
  /** The position is a premove plan's. */
  planning?: boolean;
}

export type StreamState = 'live' | 'waiting' | 'ended';

/** The game page's state; its `draw()` renders from it. */
export interface GamePage {
  game: Schemas['GameView'] | null;
  etag: string | null;
  pos: Position | null;
  actions: Schemas['ActionView'][];
  profiles: Record<string, Schemas['PublicProfile'] | null>;
  chat: Schemas['ChatMessageView'][];
  chatMuted: boolean;
  selected: { cell?: string; hand?: Kind } | null;
  pending: { to: string; promote?: boolean; text: string }[] | null;
  illum: Set<string>;
  view: string | null;
  names: boolean;
  zoom: boolean;
  live: StreamState;
  recent: string[];
  plan: ReturnType<typeof createPlan> | null;
  premoves: Schemas['PremovesView'] | null;
}

/** A problem+json answer (or one made up when there was none). */
export type ProblemLike = Partial<Schemas['Problem']> & { retryAfter?: number | null };

/** `h()` and `s()` attributes: `class` may be a list (falsy items left out); null, undefined and false leave one out, true writes it empty. */
export type Attrs = Record<string, unknown>;
export type Child = Node | string | number | null | undefined | false | Child[];

/** What `follow()` (sse.js) tells: each message, its data parsed (D: the stream's schema), and the connection's state. */
export interface FollowHandlers<D> {
  auth?: boolean;
  onEvent: (msg: { id: string | undefined; event: string; data: D }) => void;
  onState?: (state: StreamState) => void;
  onReset?: () => void;
}

/** A rules' effect (ActionView.effects, game.move data), as position.js's describeEffect reads it. */
export interface Effect {
  type?: string;
  seats?: Seat[];
  automatic?: boolean;
  seat?: Seat;
  reason?: string;
  by?: Seat | null;
  result?: Schemas['ResultView'] | null;
}

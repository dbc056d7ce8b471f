// Types for the packages the server uses that ship none: express (no @types/express installed),
// spdy and spdy-transport (frozen since 2020; spdy-guard.js, spdy-backpressure.js and h2-spdy.js
// reach into their private fields). Only what the lab uses is declared, as the lab uses it. JSDoc
// cannot declare a module, hence this one declaration file. With @types/express installed, the
// express part goes: an ambient declaration here would hide that package's.

declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A request as express hands it to a route: node's, with what express adds and the lab reads. */
  export interface Request extends IncomingMessage {
    url: string;
    method: string;
    /** The target before a mounted router cut its prefix off. */
    originalUrl: string;
    baseUrl: string;
    path: string;
    /** express 5's default parser: a parameter given twice is an array. */
    query: Record<string, string | string[] | undefined>;
    params: Record<string, string>;
    /** What a body parser read (express.json, express.text); undefined without one. */
    body: unknown;
    is(type: string): string | false | null;
  }

  export interface Response extends ServerResponse {
    status(code: number): this;
    type(type: string): this;
    set(field: string, value: string): this;
    set(fields: Record<string, string>): this;
    send(body: string): this;
  }

  /** next(): on to the next handler; next(err): to the error handlers. */
  export type NextFunction = (err?: unknown) => void;
  export type RequestHandler = (req: Request, res: Response, next: NextFunction) => unknown;
  /** err: whatever a handler threw or passed to next(). */
  export type ErrorHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => unknown;
  export type Handlers = Array<RequestHandler | RequestHandler[]>;

  export interface Router {
    (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
    use(...handlers: Handlers): this;
    use(handler: ErrorHandler): this;
    use(path: string, ...handlers: Array<RequestHandler | Router>): this;
    get(path: string | string[], ...handlers: Handlers): this;
    post(path: string | string[], ...handlers: Handlers): this;
    put(path: string | string[], ...handlers: Handlers): this;
    delete(path: string | string[], ...handlers: Handlers): this;
    all(path: string | string[], ...handlers: Handlers): this;
  }

  export interface Application extends Router {
    /** The prototypes of every request and response the app handles (express-classes.js). */
    request: object;
    response: object;
    disable(setting: string): this;
    set(setting: string, value: unknown): this;
  }

  interface Express {
    (): Application;
    Router(): Router;
    json(options: { limit?: string | number; strict?: boolean }): RequestHandler;
    text(options: { type?: string; limit?: string | number }): RequestHandler;
    static(root: string): RequestHandler;
  }

  const express: Express;
  export default express;
}

declare module 'spdy-transport' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex, Readable } from 'node:stream';

  /** A decoded header field, in the order the block had it. */
  export interface Field {
    name: string;
    value: string;
  }

  /** A frame as the parser hands it on; each field is there on the frame types that carry it. */
  export interface Frame {
    type: string;
    id: number;
    fin: boolean;
    ack?: boolean;
    priority?: unknown;
    data: Buffer;
    /** The HEADERS frame's fields, in order (set by spdy-guard.js). */
    fields: Field[];
    /** GOAWAY's */
    lastId: number;
    /** GOAWAY's and RST_STREAM's, by name */
    code: string;
  }

  export type Callback<T = void> = (err: Error | null | undefined, value: T) => void;

  export interface Parser {
    onFrameHead(buffer: Buffer, callback: Callback<Frame>): void;
    setCompression(pair: { decompress: Decompressor }): void;
    queueHeaderBlock(header: object, block: unknown, callback: Callback<Frame>): unknown;
    decompress: { write(chunks: unknown, callback: Callback<Field[]>): void };
    error(code: number, message: string): Error;
    kill(): void;
    _lastHeaderBlock: { id: number } | null;
    pendingHeader: { type: number; id: number };
  }

  /** HPACK's decoder: 'data' per decoded field. */
  export interface Decompressor extends EventEmitter {
    _processUpdate(): unknown;
  }

  /** What the framer queues for the socket. */
  export interface QueueItem {
    stream: number;
    priority: unknown;
    chunks: Buffer[];
    callback: ((err?: Error | null) => void) | null;
  }

  /** The framer: a Readable of frames, piped to the socket, which schedules and writes them. */
  export interface Framer extends Readable {
    pushEnabled: boolean | undefined;
    goawayFrame(frame: { lastId: number; code: string; extra: string }, callback: () => void): void;
    rstFrame(frame: { id: number; code: string }, callback?: () => void): unknown;
    dataFrame(frame: Frame, callback: (err?: Error | null) => void): void;
    schedule(item: QueueItem): unknown;
    _split(o: { reserve: number; chunks: Buffer[] }): Array<{ size: number; chunks: Buffer[] }>;
    _resetTimeout(): void;
    window: { send: { update(bytes: number, callback: () => void): void } };
    _readableState: { length: number };
  }

  export interface Stream extends Duplex {
    id: number;
    method: string | null;
    path: unknown;
    headers: Record<string, string | string[]>;
    connection: Connection;
    respond(status: number, headers: Record<string, string>): void;
    abort(code?: string): void;
    _spdyState: { aborted: boolean };
    _writableState: { finished: boolean };
  }

  export interface State {
    parser: Parser;
    framer: Framer;
    stream: { map: Record<number, Stream>; nextId: number; lastId: { received: number } };
    goaway: number | false;
  }

  export interface Connection extends EventEmitter {
    socket: Duplex;
    _spdyState: State;
    end(): void;
    _onParserError(err: Error & { code: number }): void;
    _handleGoaway(frame: Frame): void;
    _goaway(o: { lastId: number; code: string; send: boolean }): void;
    _handleFrame(frame: Frame): unknown;
    _isGoaway(id: number): boolean;
  }

  export const connection: {
    create(socket: Duplex, options: { protocol: 'http2'; isServer: boolean; maxStreams: number }): Connection;
  };

  export const protocol: {
    http2: {
      constants: {
        errorByCode: Record<number, string>;
        error: Record<string, number>;
        frameType: Record<string, number>;
      };
    };
  };
}

declare module 'spdy' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  import type { Server as HttpsServer, ServerOptions } from 'node:https';
  import type { Stream } from 'spdy-transport';

  /** A response on spdy: node's, over one spdy-transport stream. */
  export interface SpdyResponse extends ServerResponse {
    spdyStream: Stream;
    /** A push promise and its stream; undefined once the request's stream has ended. */
    push(path: string, headers: { request: Record<string, string>; response: Record<string, string> }, callback: (err?: Error | null) => void): Stream | undefined;
  }

  export interface SpdyServer extends HttpsServer {
    /** Turns a stream into a request and a response, as spdy's own connections do. */
    _onStream(stream: Stream): void;
  }

  export interface SpdyOptions extends ServerOptions {
    spdy?: { protocols?: string[]; plain?: boolean; 'x-forwarded-for'?: boolean };
  }

  const spdy: {
    createServer(options: SpdyOptions, handler: (req: IncomingMessage, res: SpdyResponse) => void): SpdyServer;
  };
  export default spdy;
}

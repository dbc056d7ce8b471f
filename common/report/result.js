// The result object: what a measurement produces and what charts, exports, history and the
// runner consume. Nothing else is shared between them. Times are milliseconds, sizes bytes
// unless the name says MiB; throughputs are bytes per second ("Bps").

/**
 * @typedef {object} Settings
 * @property {number} requests      parallel fetches per timed run (1–10,000)
 * @property {number} sizeMiB       response size per request
 * @property {number} delayMs       server delay per request
 * @property {number} repeats       timed runs per server
 * @property {number} maxInFlight   dispatch window: at most this many fetches outstanding
 * @property {string[]} servers     ids of common/setup/servers.js
 * @property {string} [control]   a server of `servers` measured a second time as the A/A control
 *   (common/setup/servers.js controlIdOf names its runs); '' or absent: none
 * @property {'cold'|'warm'} connections  cold: POST /api/reset before each timed run; warm: untimed warm-up first
 * @property {string} preset        preset id (common/setup/presets.js), the network the run claims
 * @property {'devtools'|'link'|'packet'} network  who applies the preset: DevTools throttling (request-level,
 *   set by the person or the runner), the lab link (connection-level; the run sets it) or the
 *   packet network (packet-level, real TCP and QUIC; the run sets it)
 * @property {number} loss          % of packets lost each way; only the packet network loses any
 * @property {number} [lossSeed]    the base seed of a lossy path's losses, given or drawn fresh for the
 *   experiment: repeat i's runs draw from common/setup/seeds.js runLossSeed(lossSeed, i, loss model)
 *   (absent where nothing could be lost, and in results from before paired loss)
 * @property {number} [maxRepeats]  repeats until decided, up to this cap (common/setup/settings.js
 *   maxRepeatsField); absent for `repeats` repeats
 * @property {number} [aimPercent]  with maxRepeats: the difference aimed at, in % (common/setup/settings.js
 *   aimPercentField; common/stats/until-decided.js stopReason); absent for none
 */

/**
 * @typedef {object} RequestRecord
 * @property {number} i            request index within the run (0-based)
 * @property {number} startMs      offset of the request's start from the run's first dispatch
 * @property {number|null} ttfbMs  time from the request's start to its first response byte: from
 *   Resource Timing, or from the page's clock under a throttled preset, because DevTools
 *   throttling delays the headers after Resource Timing's responseStart is taken
 * @property {number|null} endMs   offset of the end of its body from the run's first dispatch
 * @property {number} bytes        body bytes read
 * @property {string} protocol     negotiated protocol from Resource Timing: 'http/1.1' | 'h2' | ''
 * @property {number|null} connectionId  x-connection-id of the response
 * @property {number|null} [clientPort]  x-client-port: the browser's source port as the server saw
 *   it, which finds the request's connection in a packet capture (older results lack it)
 * @property {number|null} serverDelayMs  the delay the server reports in server-timing
 * @property {string|null} error   why it failed (null when it succeeded); 'timeout' when the run
 *   made no progress for limits.stall (common/setup/settings.js)
 */

/**
 * @typedef {object} RunRecord
 * @property {string} server       an id of common/setup/servers.js
 * @property {string} protocol     the protocol most of its requests negotiated
 * @property {number} repeat       1-based
 * @property {number} totalMs      first dispatch → last body end
 * @property {number} [startEpochMs]  wall-clock time of the first dispatch (ms since 1970), which
 *   lines a capture's packets up with the requests (older results lack it)
 * @property {boolean} valid       whether the run counts (common/stats/validity.js decides)
 * @property {import('../stats/validity.js').InvalidReason[]} invalidReasons  why not; [] for a valid run
 * @property {{ cpuMs: number, connectionsOpened: number, requests: number, bytesSent: number }} [serverStats]
 *   what the server paid for this run, from the lab's counters before and after it (runs are
 *   sequential): CPU of the whole lab process, connections it opened, requests and body bytes
 * @property {{ devtoolsConnections: number, problems: number }} [crossCheck]  the runner's DevTools
 *   cross-check (runner/output/cross-check.js): connections DevTools saw, requests it disagreed on
 * @property {number} failures     requests that failed or had the wrong length
 * @property {number} connections  distinct connection ids seen
 * @property {RequestRecord[]} requests
 * @property {CaptureRecord} [capture]  the packets of this run, where a capture was asked for
 * @property {number|null} [lossSeed]  the seed both directions' losses started from at this run's
 *   first packet (common/setup/seeds.js runLossSeed of settings.lossSeed, repeat and loss model), on a path that lost
 *   packets; null or absent elsewhere (and in results from before paired loss)
 */

/**
 * @typedef {object} CaptureRecord  a run's packet capture (server/packet/capture.js), in pcapng
 * @property {{ sent: string, received: string, keys: string|null }} files  what entered the
 *   emulator (drops marked with their cause), what left it, and the browser's TLS keys of the run
 *   (SSLKEYLOGFILE format; null where the lab has no key log): paths as the lab wrote them
 * @property {boolean} whole  whole packets, or only their first bytes (server/config.js captureHeaderBytes)
 * @property {{ sent: number, received: number, droppedByLoss: number, droppedByQueue: number }} packets
 * @property {number} bytes  both capture files together
 * @property {string|null} cut  where the capture stopped at its size bound before the run ended
 * @property {string|null} error  a write that failed, naming the file
 * @property {CaptureConnections|null} [connections]  the run's connections as the capture shows
 *   them; null when the capture failed (older results lack it)
 */

/**
 * @typedef {object} CaptureConnections  a run's connections read back from its capture
 *   (server/evidence/connections.js)
 * @property {ConnectionRecord[]} records  one per
 *   TCP connection or QUIC 4-tuple, in the order of their first packet; times in ms after originEpochMs
 * @property {number|null} originEpochMs  wall-clock time of the capture's first packet (ms since
 *   1970), which lines the records up with the run's startEpochMs
 * @property {number} skipped  packets in no connection
 * @property {string|null} error  what could not be read (a cut or corrupt file); the records are what was
 */

/**
 * @typedef {object} ConnectionRecord  one connection of a run's capture (server/evidence/connections.js)
 * @property {'tcp'|'udp'} transport
 * @property {number} serverPort
 * @property {number} clientPort
 * @property {number} firstMs  its first packet in the sent file, ms after the sent file's first packet
 * @property {number} lastMs  its last packet in either file, on the same clock
 * @property {{ startMs: number|null, replyMs: number|null, handshakeMs: number|null }} handshake
 *   startMs: the client's first SYN (TCP) or first long-header datagram, its Initial (QUIC), as it
 *   entered the path, on the firstMs clock; replyMs, after startMs: the browser side received the
 *   first SYN-ACK (TCP) or the first datagram from the server starting with a long header (QUIC);
 *   handshakeMs, after startMs: the browser side received the first server payload sent after the
 *   client's first payload (TCP; over TLS the start of the server's first flight) or the first
 *   datagram from the server starting with a short (1-RTT) header (QUIC). null: not seen
 * @property {{ down: number, up: number }} packets  in the sent file, dropped ones included
 * @property {{ down: number, up: number }} bytes  transport payload in the sent file (resends and drops included), by length on the wire
 * @property {{ loss: { down: number, up: number }, queue: { down: number, up: number } }} dropped  by the path's cause
 * @property {{ down: number, up: number }|null} retransmissions  TCP: sent segments (payload, SYN or FIN) starting
 *   below the highest sequence number already sent that way; null for UDP
 * @property {number|null} longestStallMs  the longest gap between two packets the browser side
 *   received down that moved its in-order data forward (TCP: new bytes its application could
 *   read) or between any two it received down (UDP); null with fewer than two
 * @property {Array<{ atMs: number, dir: 'down'|'up', kind: 'loss'|'queue'|'retransmission' }>} marks  in the sent file's order
 * @property {boolean} marksCut  more than maxMarks marks: the first maxMarks are kept
 * @property {NetLogConnection|null} [netlog]  what Chromium's NetLog says of the same connection
 *   (same transport and ports: runner/output/netlog.js withNetLog): ALPN, TLS version, resumption, 0-RTT,
 *   QUIC's own loss count; null where the NetLog has none; absent where no NetLog was read
 */

/**
 * @typedef {object} NetLogConnection  one connection as Chromium's NetLog saw it
 * @property {'tcp'|'udp'} transport
 * @property {number} clientPort  the browser's source port (a QUIC session that migrated: its first)
 * @property {number} serverPort
 * @property {number} startEpochMs  TCP_CONNECT's start, or the QUIC session's: timeTickOffset + time
 * @property {number|null} handshakeMs  after startEpochMs: SSL_CONNECT ended (TCP + TLS) or
 *   QUIC_SESSION_CRYPTO_HANDSHAKE_COMPLETE; null: never (or no TLS)
 * @property {string|null} protocol  the ALPN ('h2', 'http/1.1'); 'h3' for QUIC; null without TLS
 * @property {string|null} tlsVersion  'TLS 1.3' and the like; null without TLS
 * @property {boolean|null} resumed  TLS session resumed: SSL_CONNECT's is_resumed (TCP); for QUIC
 *   the ServerHello (first Initial CRYPTO frame) carries a pre_shared_key; null: not seen
 * @property {ZeroRtt|null} zeroRtt  null: no TLS, or a TLS handshake that failed
 * @property {QuicFigures|null} quic  null for TCP
 * @property {string|null} error  a TCP or TLS connect that failed (its net error)
 * @property {number} sourceId  the NetLog source, to look it up in the file
 */

/**
 * @typedef {'not-attempted'|'accepted'|'rejected'|'unconfirmed'} ZeroRtt  early data (0-RTT):
 *   QUIC: QUIC_SESSION_ZERO_RTT_STATE's NotAttempted, AttemptedAndSucceeded, AttemptedAndRejected;
 *   'unconfirmed' when 0-RTT packets went out and the handshake never completed, 'not-attempted'
 *   when none did. TCP: SSL_HANDSHAKE_EARLY_DATA_REASON's BoringSSL reason, sorted as Chromium sorts
 *   QUIC's (accepted; peer declined, session not resumed or HelloRetryRequest: rejected); absent
 *   (Chromium offers early data over TCP only when enabled): 'not-attempted'
 */

/**
 * @typedef {object} QuicFigures  the client's view of a QUIC connection
 * @property {string|null} version  QUIC_SESSION_VERSION_NEGOTIATED ('RFCv1')
 * @property {number} packetsSent  QUIC packets (QUIC_SESSION_PACKET_SENT; coalesced ones each count)
 * @property {number} packetsReceived  datagrams (QUIC_SESSION_PACKET_RECEIVED), undecryptable ones included
 * @property {number} packetsLost  packets the client declared lost (QUIC_SESSION_PACKET_LOST)
 * @property {number} packetsRetransmitted  packets sent with a transmission_type other than
 *   NOT_RETRANSMISSION: they carry data sent before (PTO probes and loss retransmissions alike)
 * @property {Record<string, number>} retransmissionTypes  those packets by transmission_type
 * @property {number} zeroRttPacketsSent  packets sent at ENCRYPTION_ZERO_RTT
 * @property {number} serverPacketsMissing  the server's 1-RTT packet numbers the client never
 *   received (gaps between the lowest and highest): its packets lost on the way, and any number
 *   the server skipped (quic-go skips one now and then to catch a peer acknowledging what it did not get)
 * @property {number} streamFramesResent  stream frames received that begin below what their
 *   stream already had: the server sending again what it took for lost (the first copy may have come)
 * @property {{ error: string, details: string|null, fromPeer: boolean }|null} closeReason
 *   QUIC_SESSION_CLOSED: the QUIC error's name, Chromium's details; null: open when the log ended
 */


/**
 * @typedef {object} Summary  statistics of a list of times (common/stats/stats.js summarize); with no
 *   times, n is 0 and every other field null
 * @property {number} n
 * @property {number|null} median
 * @property {number|null} mean
 * @property {number|null} p95
 * @property {number|null} min
 * @property {number|null} max
 * @property {number|null} sd        sample standard deviation; 0 for one time
 * @property {[number, number]|null} ci95  the median's confidence interval, at ciLevel (the name
 *   is older than the levels: 95 % where the runs allow it, common/stats/stats.js medianInterval); null
 *   below two times, which have no spread to draw one from
 * @property {number|null} [ciLevel]  the interval's exact coverage (0.75 for 3 runs, 0.9375 for 5,
 *   0.96875 for 6); absent in results saved before intervals said their level
 */

/**
 * @typedef {object} ServerCost  what a server paid per valid run (from the runs' serverStats)
 * @property {number|null} serverCpuMs       median CPU of the lab process per valid run; null where no run recorded it
 * @property {number|null} connectionsPerRun median connections opened per valid run; null likewise
 */

/** @typedef {Summary & ServerCost} ServerSummary  over the totalMs of a server's valid runs */

/**
 * @typedef {'faster'|'slower'|'no clear difference'|'no meaningful difference'} Verdict  decided by
 *   a 95 % interval (common/stats/stats.js verdicts): wholly beyond ±practicalMargin of 1, faster or
 *   slower; wholly within it, no meaningful difference; otherwise, or below 95 %, no clear difference
 */

/**
 * @typedef {object} Ratio  one set of times against another (common/stats/stats.js compare)
 * @property {number} ratio           the median / the other's median (< 1: faster)
 * @property {[number, number]|null} ci95  the ratio's confidence interval at ciLevel (common/stats/stats.js
 *   ratioInterval; 95 % where the runs allow it, 90 % at most for 3 against 3); null with fewer
 *   than two times on either side
 * @property {number|null} [ciLevel]  its exact coverage; absent in results saved before intervals said their level
 * @property {Verdict} verdict        'no clear difference' without an interval, or with one below 95 %
 * @property {boolean} [paired]       compared repeat against repeat under the same loss seed
 *   (common/stats/stats.js comparePaired): ratio is then the pairs' Hodges–Lehmann estimate and ci95 its
 *   interval from the signed-rank distribution; absent for unpaired comparisons
 * @property {number} [pairs]         with paired: the repeats both ran validly under the same seed
 *   (below requiredLevel where given)
 * @property {number} [requiredLevel]  the level this verdict needed, where it is more than 95 %: its
 *   step of Holm's ladder across the experiment's comparisons, times its look's share of the rate
 *   under repeats until decided (common/stats/family.js); absent otherwise
 * @property {number} [pDecided]  the smallest false-verdict rate at which its interval decides (1 −
 *   the level of the widest decided interval; 1 when none is): Holm's step-down orders by it;
 *   absent in results saved before 2026-11-27
 * @property {[number, number]|null} [detectable]  the ratios these runs would have called faster
 *   (below the first) or slower (above the second) with 80 % power at the level required, from
 *   their spread (common/stats/detectable.js); null where they cannot reach that level at any
 *   difference; absent without an interval and in results saved before 2026-11-28
 */

/**
 * @typedef {{ server: string, baseline: string, insideControl?: [number, number] } & Ratio} Comparison  a server against its
 *   family's HTTP/1.1 server (common/setup/servers.js baselineOf); baseline: the server it is compared with;
 *   insideControl: with an A/A control (settings.control), a faster or slower verdict whose ratio
 *   lies inside the A/A comparison's interval, which is given: not a finding
 */

/** @typedef {import('../setup/networks.js').NetworkId|'devtools-port'|'runner'|'label'} PresetAppliedBy  who set the preset: a
 *   network the lab sets (its id: the page sets it), the lab through the Chrome's DevTools port, the runner through CDP, or nobody the page can see (a label) */

/**
 * @typedef {object} PacketCounts  one direction of the packet network during a run (server/packet/shaper.js)
 * @property {number} delivered       packets delivered
 * @property {number} deliveredBytes  their bytes (IP packets)
 * @property {number} droppedByLoss   packets lost on the wire (random or bursty loss)
 * @property {number} droppedByQueue  packets dropped at the full queue
 * @property {number} [droppedByDevice]  packets the sending side's kernel dropped at its TUN device's queue, before the emulator read them (absent in results before 2026-11-26)
 * @property {number} [droppedByReceiver]  packets the receiving side's TUN device refused when the emulator wrote them (absent in results before 2026-11-27, when they were counted delivered)
 * @property {number} unshaped        the lab UI's packets, carried unshaped
 * @property {number} onLink          packets still on the link at the run's end (a level, not a count)
 */

/**
 * @typedef {object} PathConditionsRecord  a lab network's conditions as set (PUT /api/networks/<id>'s answer)
 * @property {string|null} preset
 * @property {number} rttMs
 * @property {number} downloadBps
 * @property {number} uploadBps
 * @property {number} queueBytes
 * @property {number} loss
 * @property {{ p: number, r: number }|null} burst
 * @property {TraceRecord|null} [traceDown]  the download rate's trace (absent in results from before traces)
 * @property {TraceRecord|null} [traceUp]
 */

/**
 * @typedef {object} TraceRecord  a trace a direction's rate followed (server/path/trace.js)
 * @property {string} name
 * @property {string} sha256  of its text
 * @property {number} meanBps
 * @property {number} periodMs
 */

/**
 * @typedef {PathConditionsRecord} LinkConditions  the lab link's conditions, as the page reads them
 */

/** @typedef {PathConditionsRecord} NetworkConditions  the packet network's conditions, as the page reads them */

/**
 * @typedef {object} PacketRecord  the packet network during a run (client/lab/api.js onNetwork)
 * @property {PathConditionsRecord} conditions  as set
 * @property {{ down: PacketCounts, up: PacketCounts }|null} counters  from the run's start to its end;
 *   null when the emulator did not answer at the end
 */

/**
 * @typedef {object} LinkRecord  the lab link during a run (client/lab/api.js onNetwork)
 * @property {PathConditionsRecord} conditions  as set
 * @property {{ down: { delivered: number, deliveredBytes: number }, up: { delivered: number, deliveredBytes: number }, openConnections: number }|null} counters
 *   pieces the link delivered from the run's start to its end, and the connections open at its end
 */

/**
 * @typedef {object} Result  one experiment (kind 'experiment')
 * @property {number} schemaVersion  this file's schemaVersion when it was made
 * @property {'experiment'} kind
 * @property {string} id
 * @property {string} startedAt     ISO time
 * @property {string} finishedAt
 * @property {Settings} settings
 * @property {{ userAgent: string, preset: import('../setup/presets.js').Preset, network: import('./network-record.js').NetworkRecord, presetAppliedBy: PresetAppliedBy,
 *   calibration: { rttMs: number, downloadBps: number, probeBytes: number, server: string }|null,
 *   networkMismatches: Array<{ quantity: string, expected: number, measured: number, text: string }>,
 *   servers: object[], browser?: string, browserName?: string, crossCheckSkipped?: string|null }} environment  preset: the preset's entry from presets.js; network: which
 *   throttles, and a network the lab sets as set and as counted during the run (LinkRecord, PacketRecord; schema 2 kept the
 *   id here and the record under environment.link or .packet: read it through network-record.js); presetAppliedBy: who set the preset; calibration: measured
 *   through the same network as the runs; networkMismatches: where the calibration disagrees with
 *   the preset by more than common/report/network-check.js allows; servers: from /api/servers; browser,
 *   browserName: the runner's, the browser's name and version ("Firefox (headless)/153.7.0") and
 *   its id (chromium, firefox); crossCheckSkipped: the runner's, why no run has a DevTools
 *   cross-check (Firefox has no DevTools), null when each has one
 * @property {RunRecord[]} runs
 * @property {boolean} stopped     the experiment ended before every run: Stop, or a failure after some runs
 * @property {string|null} stopReason  'stopped' (Stop) or what failed, e.g. the lab no longer answering
 * @property {Record<string, ServerSummary>} summary
 * @property {Comparison[]} comparisons
 * @property {Record<string, number>|null} floorMsByServer  least total time the preset's latency and
 *   bandwidth allow, per server id (common/stats/floor.js); null without throttling
 * @property {UntilDecidedRecord} [untilDecided]  with repeats until decided: its rounds and why it
 *   stopped; absent for a fixed number of repeats
 * @property {{ comparisons: number, rate: number }} [family]  the comparisons of the whole experiment
 *   its verdicts were judged across (common/stats/family.js judgeExperiment, Holm's step-down) and the rate
 *   of false verdicts kept across them; absent in results saved before 2026-11-27
 */

/**
 * @typedef {object} UntilDecidedRecord  how a point measured with repeats until decided got its
 *   repeats (common/stats/until-decided.js); settings.repeats says how many ran
 * @property {number} maxRepeats  the cap
 * @property {number} rounds      rounds run
 * @property {import('../stats/until-decided.js').StopReason|null} stoppedBy  every comparison decided,
 *   every undecided one able to find the difference aimed at (aimed), the cap reached, or the time
 *   budget spent before the next round; null when the command stopped before the point did (the
 *   browser or the lab went away)
 * @property {number} requiredLevel  the least level its last look's verdicts needed (each
 *   comparison's own is its requiredLevel)
 * @property {number} [aimPercent]  the difference aimed at (--aim, the page's Aim at), in % of the
 *   baseline's time; absent when none was
 */

/** @typedef {'requested'|'preload'|'push'|'hints'} PageLoadMode  common/report/page-load.js pageLoadModes */

/**
 * @typedef {object} PageLoadSettings  the Page load panel's set-up (common/report/page-load.js has the bounds)
 * @property {string} server       an id of common/setup/servers.js
 * @property {number} assets       scripts the page inserts once parsed
 * @property {number} assetKiB     size of each
 * @property {number} thinkMs      the server's think time before the HTML (103 goes out within it)
 * @property {number} repeats      loads per mode
 * @property {PageLoadMode[]} modes
 * @property {string} preset       preset id
 * @property {'devtools'|'link'|'packet'} network  who applies the preset
 */

/**
 * @typedef {object} PageLoad  one cold top-level navigation (Navigation Timing of the loaded page)
 * @property {string} mode
 * @property {number} repeat
 * @property {number} loadMs               navigation start → load event
 * @property {number} documentHeadersMs    → the final response's headers
 * @property {number|null} hint103Ms       → the 103 (firstInterimResponseStart); null without one
 * @property {number} assetsEndMs          → the last asset's end
 * @property {number} earlyHintAssets      assets Resource Timing reports as initiatorType 'early-hints'
 * @property {number|null} assetsRequestedEarly  assets the server saw requested before it sent the HTML
 * @property {number|null} earlyLeadMs     how long before the HTML the first of them came
 * @property {boolean|null} hintActedOn    Early Hints mode: the browser acted on the 103: an asset's
 *   initiatorType is 'early-hints', or the server saw it before the HTML
 * @property {string} protocol             the document's nextHopProtocol
 * @property {number} pushesSent           counted on the server
 * @property {number} pushesRefused        the browser refused them (SETTINGS_ENABLE_PUSH = 0)
 * @property {CaptureRecord} [capture]     the packets of this load, where a capture was asked for (as a run's)
 */

/**
 * @typedef {object} PageLoadOutcome  what one mode's loads did (common/report/page-load.js summarizeLoads)
 * @property {string} mode
 * @property {number} pushesSent
 * @property {number} pushesRefused
 * @property {number} earlyHintAssets
 * @property {number} assetsRequestedEarly
 * @property {number|null} earlyLeadMs  median lead of the loads that requested assets early; null if none did
 * @property {number} hint103Seen     loads that received a 103
 * @property {number} hintActedOn     loads that acted on it
 * @property {boolean} refusedAll     Push mode: the browser refused every push
 * @property {boolean} noPushes       Push mode: nothing was pushed, so no push time exists
 * @property {Ratio} [vsRequested]    its loadMs against Requested's; absent for Requested, for a
 *   mode without loads and for a Push mode with nothing pushed
 */

/** @typedef {Summary & PageLoadOutcome} PageLoadRow  per mode: its loads' loadMs summarized, and what they did */

/**
 * @typedef {object} PageLoadEnvironment
 * @property {import('../setup/presets.js').Preset|null} preset  the preset's entry from presets.js
 * @property {import('./network-record.js').NetworkRecord} network  who applies the preset, and a lab network as set and counted (as a Result's)
 * @property {PresetAppliedBy} [presetAppliedBy]  absent in files saved before it was recorded
 * @property {string} [browser]    the runner's: the browser's name and version
 * @property {'chromium'|'firefox'} [browserName]  the runner's: which browser (common/setup/browser-names.js)
 * @property {string} [browserUrl] the runner's, with --browser-url: the DevTools endpoint of the Chrome used
 * @property {'trusted'|'ignored'} [certificate]  with browserUrl: whether that Chrome trusted the lab's
 *   certificate or had to be told to ignore certificate errors
 * @property {string|null} [netLog]  the runner's, with --netlog: Chromium's NetLog of the session, relative to the output folder
 * @property {string|null} [netLogError]  what could not be read of it (as RunnerEnvironment's, runner/output/report.js)
 * @property {string} [qlog]  the runner's, with --netlog in Firefox: the folder of its qlog files, relative to the output folder
 */

/**
 * @typedef {object} PageLoadResult  the Page load panel's loads (kind 'page-loads')
 * @property {number} schemaVersion
 * @property {'page-loads'} kind
 * @property {string} [id]  names its loads' captures (`<id>-<mode>-<repeat>`); absent in files saved before it
 * @property {string} startedAt
 * @property {string} userAgent
 * @property {PageLoadSettings} settings
 * @property {PageLoadEnvironment} environment
 * @property {PageLoad[]} loads
 * @property {PageLoadRow[]} summary
 * @property {true} [stopped]  the loads ended early (Stop, a failed capture, the lab gone): `loads` is what finished
 * @property {string} [stopReason]  with stopped: why
 */

/**
 * The version of the shapes above. It changes when a field changes meaning or goes away;
 * readers refuse versions they cannot read with a message instead of drawing half a result.
 * 2: invalidReasons [{ code, text }] (was one invalidReason string); comparisons name their
 * baseline; page-load settings carry only the server id.
 * 3: environment.network is the network's record { id, conditions, counters } (was its id, with
 * the record under environment.link or environment.packet).
 */
export const schemaVersion = 3;

/** The versions this h2lab reads: 2 as well, its network through common/report/network-record.js. */
const readableVersions = [2, 3];

/**
 * Throws one sentence unless `result` is a current result of `kind`; returns it otherwise.
 * @param {any} result  any: a file's JSON, which this checks
 * @param {'experiment'|'page-loads'} kind
 */
export function checkSchema(result, kind) {
  const version = result?.schemaVersion;
  if (version === undefined) {
    throw new Error(`an h2lab result from before schema versions (this h2lab reads schema ${schemaVersion}): open it with the h2lab that made it, or run the experiment again`);
  }
  if (!readableVersions.includes(version)) {
    throw new Error(`an h2lab result of schema ${JSON.stringify(version)}, and this h2lab reads schemas ${readableVersions.join(' and ')}: open it with the h2lab that made it${version > schemaVersion ? ' (a newer one)' : ''}, or run the experiment again`);
  }
  if (result.kind !== kind) throw new Error(`an h2lab ${result.kind ?? 'file'} result, not ${kind === 'experiment' ? 'an experiment' : 'page loads'}`);
  return result;
}


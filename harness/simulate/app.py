"""The aiohttp application: routes, the request log middleware, and answer emission."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from harness import __version__
from harness.simulate.config import SimConfig
from harness.simulate.emit import drop, emit_stream, emit_whole, json_response, whole_body
from harness.simulate.engine import Engine
from harness.simulate.faults import Fault, FaultPlan
from harness.simulate.log import LogEntry, RequestLog
from harness.simulate.metrics import SimCounters, exposition
from harness.simulate.receive import ReceiveStamps
from harness.simulate.requests import BadRequest, Kind, parse_json, parse_request
from harness.simulate.shapes import ChunkTemplate, dumps, error_body, new_id
from harness.tokenizer import Tokenizer, load_tokenizer

_now = time.perf_counter_ns
ENTRY_KEY = web.RequestKey("sim_entry", LogEntry)
_LONG_PROMPT_CHARS = 20_000  # tokenise longer prompts off the event loop
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Simulator:
    """State shared by all requests of one simulator: config, engine, log, faults."""

    def __init__(self, cfg: SimConfig, tokenizer: Tokenizer | None = None) -> None:
        self.cfg = cfg
        self.engine = Engine(cfg, tokenizer or load_tokenizer(cfg.tokenizer))
        self.log = RequestLog(cfg.log_file, cfg.log_limit)
        self.faults = FaultPlan(cfg)
        self.inflight = 0
        self.closing = asyncio.Event()
        self._conns: dict[tuple[int, int | None], list[int]] = {}
        self.received = ReceiveStamps()  # filled by the listening site (receive.py)
        self.counters = SimCounters()  # served at /metrics (metrics.py)
        self.started_at = time.time()
        # --cache-responses: (route, body bytes) → the first answer's bytes
        self.answered: dict[
            tuple[str, bytes], bytes
        ] = {}  # process_start_time_seconds: a restart is a new server

    # ---- connection identity: (transport id, peer port) -> [conn id, requests so far]
    def _conn(self, request: web.Request) -> tuple[int, int | None, int]:
        transport = request.transport
        peer = transport.get_extra_info("peername") if transport else None
        port = peer[1] if isinstance(peer, tuple) and len(peer) > 1 else None
        key = (id(transport), port)
        slot = self._conns.get(key)
        if slot is None:
            slot = self._conns[key] = [len(self._conns), 0]
        else:
            slot[1] += 1
        return slot[0], port, slot[1]

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024**2)
        r = app.router
        r.add_get("/ping", self._ok)
        r.add_post("/ping", self._ok)
        r.add_get("/health", self._ok)
        r.add_get("/v1/models", self._models)
        r.add_get("/metrics", self._metrics)
        r.add_get("/version", self._version)
        r.add_post("/invocations", self._invocations)
        r.add_post("/v1/completions", self._completions)
        r.add_post("/v1/chat/completions", self._chat)
        r.add_post("/tokenize", self._tokenize)
        r.add_post("/detokenize", self._detokenize)
        r.add_get("/_sim/log", self._get_log)
        r.add_delete("/_sim/log", self._clear_log)
        return app

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        arrival = _now()
        received = self.received.claim(request.transport)
        if request.path.startswith("/_sim/"):
            return await handler(request)
        conn_id, port, nth = self._conn(request)
        entry = self.log.new(
            method=request.method,
            path=request.path,
            arrival_ns=arrival,
            received_ns=received,
            conn_id=conn_id,
            peer_port=port,
            conn_request_index=nth,
        )
        request[ENTRY_KEY] = entry
        try:
            if request.path in self.cfg.disable_route:
                entry.fault = "disabled_route"
                return json_response(error_body(f"Not Found: {request.path}", 404), 404, entry)
            try:
                resp = await handler(request)
            except web.HTTPException as exc:
                entry.status = exc.status
                raise
            if entry.status is None:
                entry.status = resp.status
            return resp
        finally:
            self.received.forget(request.transport)  # a body's later segments
            entry.end_ns = _now()
            self.log.finish(entry)

    async def _ok(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=200)

    async def _models(self, request: web.Request) -> web.StreamResponse:
        created = int(time.time())
        data = [
            {
                "id": m,
                "object": "model",
                "created": created,
                "owned_by": "vllm",
                "root": m,
                "parent": None,
                "max_model_len": self.cfg.max_model_len,
            }
            for m in self.cfg.models
        ]
        return json_response(dumps({"object": "list", "data": data}), 200, None)

    async def _metrics(self, request: web.Request) -> web.StreamResponse:
        text = exposition(self.counters, self.cfg.models[0], self.cfg, self.started_at)
        return web.Response(text=text, content_type="text/plain", charset="utf-8")

    async def _version(self, request: web.Request) -> web.StreamResponse:
        return json_response(dumps({"version": __version__}), 200, None)

    async def _get_log(self, request: web.Request) -> web.StreamResponse:
        try:
            since = int(request.query.get("since", "0"))
        except ValueError:
            return json_response(
                error_body("since must be a whole number", 400, "since"), 400, None
            )
        entries = [e.to_dict() for e in self.log.entries if e.index >= since]
        return json_response(dumps({"entries": entries}), 200, None)

    async def _clear_log(self, request: web.Request) -> web.StreamResponse:
        self.log.clear()
        self.engine.cache.clear()
        self.answered.clear()
        self.counters.clear()
        return json_response(b'{"cleared":true}', 200, None)

    async def _tokenize(self, request: web.Request) -> web.StreamResponse:
        entry: LogEntry = request[ENTRY_KEY]
        raw = await request.read()
        try:
            body = parse_json(raw)
            entry.body = body
            kind: Kind = "chat" if "messages" in body else "completion"
            req = parse_request(body, kind)
        except BadRequest as err:
            return self._bad(entry, raw, err)
        ids = await self._ids(req)
        out = {
            "count": len(ids),
            "max_model_len": self.cfg.max_model_len,
            "tokens": ids,
            "token_strs": None,
        }
        return json_response(dumps(out), 200, entry)

    async def _detokenize(self, request: web.Request) -> web.StreamResponse:
        entry: LogEntry = request[ENTRY_KEY]
        raw = await request.read()
        try:
            body = parse_json(raw)
            entry.body = body
            tokens = body.get("tokens")
            if not isinstance(tokens, list) or not all(
                isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in tokens
            ):
                raise BadRequest("tokens must be a list of token ids", "tokens")
            text = self.engine.tokenizer.decode(tokens)
        except BadRequest as err:
            return self._bad(entry, raw, err)
        except (KeyError, ValueError) as err:  # an id the tokenizer does not have
            return self._bad(entry, raw, BadRequest(f"cannot decode tokens: {err}", "tokens"))
        return json_response(dumps({"prompt": text}), 200, entry)

    async def _invocations(self, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, None)

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, "completion")

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._generate(request, "chat")

    def _bad(self, entry: LogEntry, raw: bytes, err: BadRequest) -> web.StreamResponse:
        if entry.body is None:
            entry.raw_excerpt = raw[:512].decode("utf-8", "replace")
        entry.error = err.message
        status = 500 if self.cfg.bad_input_5xx else 400
        return json_response(error_body(err.message, status, err.param), status, entry)

    async def _ids(self, req: Any) -> list[int]:
        if req.prompt_ids is None and len(req.prompt_text) > _LONG_PROMPT_CHARS:
            return await asyncio.to_thread(self.engine.prompt_ids, req)
        return self.engine.prompt_ids(req)

    async def _generate(self, request: web.Request, kind: Kind | None) -> web.StreamResponse:
        entry: LogEntry = request[ENTRY_KEY]
        arrival = entry.arrival_ns
        raw = await request.read()
        try:
            body = parse_json(raw)
            if self.cfg.log_bodies:
                entry.body = body
            if kind is None:  # /invocations takes both shapes, like vLLM's
                if "messages" in body:
                    kind = "chat"
                elif "prompt" in body:
                    kind = "completion"
                else:
                    raise BadRequest("the body needs 'prompt' (completion) or 'messages' (chat)")
            req = parse_request(body, kind)
        except BadRequest as err:
            return self._bad(entry, raw, err)
        entry.kind, entry.stream, entry.model = kind, req.stream, req.model
        cached = self.answered.get((request.path, raw)) if self.cfg.cache_responses else None
        if cached is not None and not req.stream:  # the engine never sees it: no counter moves
            entry.fault = "cached_response"
            return json_response(cached, 200, entry)
        model = req.model or self.cfg.models[0]
        if model not in self.cfg.models:
            msg = f"The model `{model}` does not exist."
            return json_response(error_body(msg, 404, "model"), 404, entry)
        self.inflight += 1
        try:
            limit = self.cfg.fail_under_concurrency
            if limit is not None and self.inflight > limit:
                entry.fault = Fault.OVERLOAD
                msg = f"overloaded: {self.inflight} requests in flight (limit {limit})"
                return json_response(error_body(msg, 503), 503, entry)
            fault = self.faults.draw()
            if fault is Fault.MALFORMED_SSE and not req.stream:
                fault = None  # no SSE framing to break in a plain JSON answer
            entry.fault = fault
            if fault is Fault.ERROR:
                status = self.cfg.error_status
                return json_response(error_body("simulated error", status), status, entry)
            if fault is Fault.HANG:
                await self.closing.wait()  # set when the server stops
                return drop(request, entry)
            ids = await self._ids(req)
            try:
                plan = self.engine.plan(req, ids, request.path, arrival)
            except BadRequest as err:
                return self._bad(entry, raw, err)
            entry.prompt_tokens = plan.prompt_tokens
            self.counters.record(plan.prompt_tokens, plan.cached_tokens, len(plan.token_ids))
            entry.cached_prompt_tokens = plan.cached_tokens
            entry.completion_tokens = len(plan.token_ids)
            entry.reported_completion_tokens = plan.reported_completion_tokens
            entry.finish_reason = plan.finish_reason
            entry.output_text = "".join(p.text for p in plan.pieces)
            rid = new_id(kind)
            tmpl, per = ChunkTemplate(kind, rid, model), self.cfg.tokens_per_chunk
            if req.stream:
                resp = await emit_stream(
                    request, entry, plan, tmpl, self._spin, per=per, usage_chunk=req.include_usage,
                    second_end=self.cfg.stream_mismatch == "eos",
                )  # fmt: skip
            else:
                listed = plan.token_ids if req.return_token_ids else None
                if self.cfg.cache_responses and entry.fault is None:
                    answer = whole_body(entry, plan, kind, rid, model, listed)
                    self.answered[(request.path, raw)] = answer
                resp = await emit_whole(request, entry, plan, kind, rid, model, self._spin, listed)
            self.counters.finished((time.perf_counter_ns() - arrival) / 1e9)  # /metrics' e2e
            return resp
        finally:
            self.inflight -= 1

    def _spin(self) -> int:
        return int(self.cfg.busy_wait_us * 1000) if self.inflight <= 1 else 0

"""A scripted OpenAI-compatible server process (``/v1/chat/completions``,
``/v1/embeddings``) on a loopback port, for tests of the LLM extractor and the embedder.

Replies are served from a script, per endpoint, then a default: for chat a configurable
reply (``{"facts": []}`` until set), for embeddings the hash embedder's vectors (not unit
length, in reverse order with their ``index``, as a server may answer). A scripted reply is
a dict: ``status`` (200), ``content`` (chat: the message text, sent as is, so it may be
malformed or truncated JSON), ``finish_reason`` ("stop"), ``body`` (the whole JSON answer
instead), ``raw`` (a body that is not JSON), ``headers`` (e.g. ``{"Retry-After": "1"}``),
``delay`` (seconds before answering: a slow reply past the client's timeout). Chat answers
report ``usage`` (prompt / completion tokens = their words). Every request is recorded with
its path, JSON body, ``Authorization`` header and arrival time (epoch seconds).

Run in its own process (``python -m sedimem.testing.llm_server --port N``) by
:class:`ScriptedLLMServer`, which also drives it: ``script_chat(...)``,
``script_embeddings(...)``, ``default_chat(...)``, ``requests()``, ``reset()``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.process import LOOPBACK, ServerProcess, free_port

__all__ = ["ScriptedLLMServer", "completion", "main"]

_CHAT = "/v1/chat/completions"
_EMBEDDINGS = "/v1/embeddings"
_ENDPOINTS = {"chat": _CHAT, "embeddings": _EMBEDDINGS}


def _words(text: str) -> int:
    return len(text.split())


def completion(content: str, finish_reason: str = "stop", prompt_tokens: int = 0) -> dict[str, Any]:
    """A chat completion answering ``content``, with its ``usage``."""
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": _words(content),
            "total_tokens": prompt_tokens + _words(content),
        },
    }


class _State:
    def __init__(self, dimension: int) -> None:
        from sedimem.embed.hashing import HashEmbedder

        self.lock = threading.Lock()
        self.embedder = HashEmbedder(dimension)
        self.scripts: dict[str, list[dict[str, Any]]] = {_CHAT: [], _EMBEDDINGS: []}
        self.default_chat: dict[str, Any] = {"content": '{"facts": []}'}
        self.requests: list[dict[str, Any]] = []

    def next_reply(self, path: str) -> dict[str, Any] | None:
        with self.lock:
            script = self.scripts[path]
            return script.pop(0) if script else None

    def answer(self, path: str, body: Any) -> tuple[int, dict[str, str], bytes, float]:
        reply = self.next_reply(path)
        if reply is None:
            reply = dict(self.default_chat) if path == _CHAT else {}
        status = int(reply.get("status", 200))
        headers = {str(k): str(v) for k, v in reply.get("headers", {}).items()}
        delay = float(reply.get("delay", 0.0))
        if "raw" in reply:
            return status, headers, str(reply["raw"]).encode(), delay
        if "body" in reply:
            return status, headers, json.dumps(reply["body"]).encode(), delay
        if status != 200:
            error = {"error": {"message": f"scripted HTTP {status}", "type": "scripted"}}
            return status, headers, json.dumps(error).encode(), delay
        if path == _CHAT:
            messages = body.get("messages", []) if isinstance(body, dict) else []
            prompt = sum(_words(str(m.get("content", ""))) for m in messages)
            answer = completion(
                str(reply.get("content", "")), str(reply.get("finish_reason", "stop")), prompt
            )
        else:
            answer = self.embeddings(body)
        return status, headers, json.dumps(answer).encode(), delay

    def embeddings(self, body: Any) -> dict[str, Any]:
        texts = body.get("input", []) if isinstance(body, dict) else []
        texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
        vectors = self.embedder.embed(texts) * 3.0  # not unit length: clients normalise
        data = [
            {"object": "embedding", "index": i, "embedding": vectors[i].tolist()}
            for i in reversed(range(len(texts)))
        ]
        tokens = sum(_words(t) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": body.get("model") if isinstance(body, dict) else None,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path == "/_health":
                self._send(200, {}, b"{}")
            elif self.path == "/_requests":
                with state.lock:
                    raw = json.dumps(state.requests).encode()
                self._send(200, {}, raw)
            else:
                self._send(404, {}, b'{"error": {"message": "no route"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            data = self.rfile.read(length)
            try:
                body = json.loads(data) if data else None
            except ValueError:
                body = None
            path = self.path
            if path.startswith("/_"):
                self._control(path, body)
                return
            with state.lock:
                state.requests.append(
                    {
                        "path": path,
                        "body": body,
                        "authorization": self.headers.get("Authorization"),
                        "at": time.time(),
                    }
                )
            if path not in state.scripts:
                self._send(404, {}, b'{"error": {"message": "no route"}}')
                return
            status, headers, raw, delay = state.answer(path, body)
            if delay:
                time.sleep(delay)
            self._send(status, headers, raw)

        def _control(self, path: str, body: Any) -> None:
            kind = path.rsplit("/", 1)[-1]
            with state.lock:
                if path.startswith("/_script/") and kind in _ENDPOINTS:
                    state.scripts[_ENDPOINTS[kind]].extend(body or [])
                elif path == "/_default/chat" and isinstance(body, dict):
                    state.default_chat = body
                elif path == "/_reset":
                    for script in state.scripts.values():
                        script.clear()
                    state.requests.clear()
                    state.default_chat = {"content": '{"facts": []}'}
                else:
                    self._send(404, {}, b'{"error": {"message": "no control route"}}')
                    return
            self._send(200, {}, b"{}")

        def _send(self, status: int, headers: dict[str, str], raw: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to answer

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dimension", type=int, default=16)
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer((LOOPBACK, args.port), _handler(_State(args.dimension)))
    server.daemon_threads = True
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


class ScriptedLLMServer(ServerProcess):
    """The scripted server as a process; ``base_url`` is its API root (``.../v1``)."""

    label = "scripted LLM server"
    not_ready = "did not answer GET /_health"

    def __init__(self, *, dimension: int = 16, startup_timeout: float = 30.0) -> None:
        super().__init__(startup_timeout=startup_timeout)
        self.dimension = dimension

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    def start(self) -> Self:
        if self.running:
            return self
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="sedimem-llm-"))
        if self._port is None:
            self._port = free_port()
        log = self._dir / "server.log"
        command = [sys.executable, "-m", "sedimem.testing.llm_server"]
        command += ["--port", str(self._port), "--dimension", str(self.dimension)]
        with log.open("ab") as out:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=self._dir,
            )
        self._wait_ready(self._healthy, lambda: log.read_text(errors="replace")[-2000:])
        return self

    def _url(self, path: str) -> str:
        return f"http://{LOOPBACK}:{self.port}{path}"

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self._url("/_health"), timeout=1) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def _control(self, path: str, body: Any) -> Any:
        request = urllib.request.Request(
            self._url(path),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, OSError) as exc:
            raise StoreUnavailable(f"{self.label}: {path} failed: {exc}") from exc

    def script_chat(self, *replies: dict[str, Any]) -> None:
        """Queue replies of ``/v1/chat/completions`` (served in order, then the default)."""
        self._control("/_script/chat", list(replies))

    def script_embeddings(self, *replies: dict[str, Any]) -> None:
        """Queue replies of ``/v1/embeddings`` (then the hash embedder's vectors)."""
        self._control("/_script/embeddings", list(replies))

    def default_chat(self, reply: dict[str, Any]) -> None:
        """The chat reply once the script is spent."""
        self._control("/_default/chat", reply)

    def requests(self, endpoint: str | None = None) -> list[dict[str, Any]]:
        """The requests received, oldest first (``endpoint``: "chat" / "embeddings")."""
        with urllib.request.urlopen(self._url("/_requests"), timeout=10) as response:
            found: list[dict[str, Any]] = json.loads(response.read())
        if endpoint is None:
            return found
        return [r for r in found if r["path"] == _ENDPOINTS[endpoint]]

    def reset(self) -> None:
        """Forget the scripts, the default chat reply and the recorded requests."""
        self._control("/_reset", {})


if __name__ == "__main__":
    main()

"""The bare-stack anchor of ``bench/load.py``: a one-process ASGI app on
uvicorn with httptools and uvloop (memexd's stack) that reads each request
body and answers a fixed JSON body of a given size.

Run: ``python bench/_bare.py PORT SIZE``
"""

from __future__ import annotations

import sys
from typing import Any

import uvicorn


def app_of(size: int) -> Any:
    body = b'{"data":' + b'"' + b"x" * max(0, size - 11) + b'"}'
    start = {"type": "http.response.start", "status": 200,
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}  # fmt: skip
    done = {"type": "http.response.body", "body": body}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        more = True
        while more:
            more = (await receive()).get("more_body", False)
        await send(start)
        await send(done)

    return app


if __name__ == "__main__":
    port, size = int(sys.argv[1]), int(sys.argv[2])
    uvicorn.run(app_of(size), host="127.0.0.1", port=port, loop="uvloop", http="httptools",
                log_level="warning", access_log=False, lifespan="off")  # fmt: skip

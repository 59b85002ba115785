"""Stopping a bot run as its own process (`python -m bot`) the way systemd does: SIGINT, its clean stop."""

from __future__ import annotations

import asyncio
import signal
import subprocess


async def stop_bot(process: asyncio.subprocess.Process, seconds: float) -> None:
    """SIGINT (the bot's clean stop, as systemd's KillSignal=SIGINT sends it: it closes its database), then a kill
    if it has not ended within `seconds`."""
    if process.returncode is None:
        process.send_signal(signal.SIGINT)
    try:
        await asyncio.wait_for(process.wait(), seconds)
    except TimeoutError:
        process.kill()
        await process.wait()


async def stop_bot_popen(process: subprocess.Popen[bytes], seconds: float) -> None:
    """The same for a bot started with subprocess.Popen (waited for in a thread, so the event loop goes on)."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.to_thread(process.wait, seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)

"""Self-tests of the offline Discord fake, driven by a tiny real discord.py bot defined here."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands

from tests.support.codes import ButtonStyle, Callback, CommandType, Component, Opcode, OptionType
from tests.support.fakediscord import BotRunner, FakeChannel, FakeDiscord, FakeUser, load_spec_validator
from tests.support.fakediscord import spec as spec_module
from tests.support.fakediscord.gateway import CLOSE_AUTHENTICATION_FAILED, INTENT_GUILD_MESSAGES, INTENT_GUILDS
from tests.support.fakediscord.interactions import build_options, resolve_command
from tests.support.fakediscord.limits import check_message

VALIDATOR = load_spec_validator()
needs_spec = pytest.mark.skipif(VALIDATOR is None, reason="Discord's openapi.json is not available")


# --------------------------------------------------------------------------- the tiny bot


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"demo:(?P<n>[0-9]+)"
):
    """A persistent button whose custom id carries its own state; each press edits the message (type 7)."""

    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(label=f"Count {n}", style=discord.ButtonStyle.primary, custom_id=f"demo:{n}")
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(content=f"count {self.n + 1}", view=counter_controls(self.n + 1))


def counter_controls(n: int) -> discord.ui.View:
    """Timeout-less controls holding one counter button."""
    controls = discord.ui.View(timeout=None)
    controls.add_item(CounterButton(n))
    return controls


class SixInARow(discord.ui.View):
    """discord.py refuses a sixth button in a row, so these controls hand-build the illegal payload."""

    def to_components(self) -> list[dict[str, Any]]:
        buttons = [{"type": Component.BUTTON, "style": ButtonStyle.PRIMARY, "label": str(i), "custom_id": f"six:{i}"}
                   for i in range(6)]
        return [{"type": Component.ACTION_ROW, "components": buttons}]


class NameModal(discord.ui.Modal, title="Your name"):
    """A one-field modal; the answer is echoed back."""

    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"hello {self.name.value}")


class PickControls(discord.ui.View):
    """A string select; picking "modal" opens the modal, anything else edits the message."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="demo:pick", options=[discord.SelectOption(label=x) for x in ("a", "b", "modal")]
    )
    async def pick(self, interaction: discord.Interaction[Any], select: discord.ui.Select[PickControls]) -> None:
        if select.values == ["modal"]:
            await interaction.response.send_modal(NameModal())
        else:
            await interaction.response.edit_message(content=f"picked {select.values[0]}")


demo = app_commands.Group(name="demo", description="Demo commands of the fake's self-test")


@demo.command(name="ping", description="Answer with a counter button")
@app_commands.describe(who="Someone to greet")
async def ping(interaction: discord.Interaction[Any], who: discord.User | None = None) -> None:
    greeting = f"pong {who.mention}" if who else "pong"
    await interaction.response.send_message(greeting, view=counter_controls(0))


@demo.command(name="secret", description="Answer only to the caller")
async def secret(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.send_message("just for you", ephemeral=True)


@demo.command(name="bad", description="Break a classic limit")
async def bad(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.send_message("six buttons", view=SixInARow())


@demo.command(name="slow", description="Defer, then edit and follow up")
async def slow(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.defer(thinking=True)
    await interaction.edit_original_response(content="done", embed=discord.Embed(title="Result"))
    await interaction.followup.send("and one more thing", file=discord.File(__file__, filename="code.py"))


@demo.command(name="dm", description="Send the caller a DM")
async def dm(interaction: discord.Interaction[Any]) -> None:
    try:
        await interaction.user.send("a secret board")
    except discord.Forbidden as exc:
        await interaction.response.send_message(f"open your DMs ({exc.code})", ephemeral=True)
    else:
        await interaction.response.send_message("sent you a DM", ephemeral=True)


@demo.command(name="pick", description="Show a select menu")
async def pick(interaction: discord.Interaction[Any]) -> None:
    await interaction.response.send_message("pick one", view=PickControls())


@demo.command(name="echo", description="Echo text (with autocomplete)")
async def echo(interaction: discord.Interaction[Any], text: str) -> None:
    await interaction.response.send_message(text)


@echo.autocomplete("text")
async def echo_complete(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=w, value=w) for w in ("apple", "apricot", "banana") if w.startswith(current)
    ]


class DemoBot(commands.Bot):
    """The tiny bot: one slash group synced globally, one persistent DynamicItem, persistent controls."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=discord.Intents.default(), guild_ready_timeout=0.1
        )

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CounterButton)
        self.add_view(PickControls())
        self.tree.add_command(demo)
        await self.tree.sync()


# --------------------------------------------------------------------------- fixtures


@dataclass
class World:
    """A fake with one guild, one channel and two users."""

    fake: FakeDiscord
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser


@pytest.fixture
async def world(restore_discord_urls: None) -> AsyncIterator[World]:
    fake = FakeDiscord(validator=VALIDATOR)
    await fake.start()
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    guild = fake.add_guild("Test Guild")
    channel = fake.add_channel(guild, "games")
    try:
        yield World(fake, channel, fake.add_user("alice"), fake.add_user("bob"))
    finally:
        await fake.close()


@pytest.fixture
async def bots(world: World) -> AsyncIterator[BotRunner[DemoBot]]:
    runner = BotRunner(world.fake, DemoBot)
    try:
        yield runner
    finally:
        await runner.stop_all()


def assert_clean(fake: FakeDiscord) -> None:
    """No violations, the fake answered like Discord, and (with the spec) every request was validated."""
    assert fake.violations == []
    assert fake.response_issues == []
    if fake.validator is not None:
        assert fake.requests and all(r.validated for r in fake.requests)


# --------------------------------------------------------------------------- tests


async def test_slash_and_button_round_trip(world: World, bots: BotRunner[DemoBot]) -> None:
    fake, channel, alice, bob = world.fake, world.channel, world.alice, world.bob
    await bots.start()
    [command] = fake.registered_commands()
    assert command["name"] == "demo"
    assert {o["name"] for o in command["options"]} >= {"ping", "secret", "bad", "slow"}

    res = await fake.slash(alice, channel, "demo", "ping", options={"who": bob})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral
    assert res.message is not None
    assert res.message.content == f"pong {bob.mention}"
    assert res.message.custom_ids() == ["demo:0"]
    assert res.message.button("Count").get("custom_id") == "demo:0"
    assert fake.channel_messages(channel) == [res.message]

    clicked = await fake.click(bob, res.message, "demo:0")
    assert clicked.callback_type == Callback.UPDATE_MESSAGE
    assert clicked.message is res.message
    assert res.message.content == "count 1" and res.message.custom_ids() == ["demo:1"]
    assert res.message.edits == 1
    again = await fake.click(alice, res.message, "demo:1")
    assert again.message is res.message and res.message.custom_ids() == ["demo:2"]
    assert_clean(fake)


@needs_spec
async def test_every_request_is_spec_validated(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    await fake.slash(world.alice, world.channel, "demo ping")
    routes = {(r.method, r.route) for r in fake.requests}
    assert ("GET", "/users/@me") in routes
    assert ("PUT", "/applications/{application_id}/commands") in routes
    assert ("POST", "/interactions/{interaction_id}/{interaction_token}/callback") in routes
    assert all(r.validated for r in fake.requests)
    # discord.py asks for zlib-stream; the fake compresses accordingly.
    assert fake.hub.connect_queries[0] == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
    assert_clean(fake)


async def test_classic_limit_breach_is_a_violation(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "bad")
    assert res.callback_type is None
    assert res.errors and "5 or fewer" in res.errors[0]
    assert len(fake.violations) == 1
    assert "data.components[0].components" in fake.violations[0]
    assert "6 buttons in one row" in fake.violations[0]
    assert fake.requests[-1].status == 400
    assert fake.channel_messages(world.channel) == []


async def test_bad_token_is_login_failure(world: World) -> None:
    bot = DemoBot()
    try:
        with pytest.raises(discord.LoginFailure):
            await bot.start("not-the-token")
    finally:
        await bot.close()
    assert world.fake.requests[0].status == 401


async def test_restart_keeps_old_buttons_working(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    first = await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "ping")
    assert res.message is not None
    await bots.stop(first)
    await bots.start()
    assert fake.hub.identify_count == 2
    clicked = await fake.click(world.bob, res.message, "demo:0")
    assert clicked.callback_type == Callback.UPDATE_MESSAGE and res.message.custom_ids() == ["demo:1"]
    assert_clean(fake)


async def test_ephemeral_answer(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "secret")
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.ephemeral
    assert res.message is not None and res.message.text() == "just for you"
    assert fake.channel_messages(world.channel) == []
    assert_clean(fake)


async def test_gateway_disconnect_is_resumed(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    await fake.disconnect_gateway()
    await fake.wait_until(lambda: fake.hub.resume_count == 1 and fake.hub.is_ready)
    res = await fake.slash(world.alice, world.channel, "demo", "ping")
    assert res.callback_type == Callback.CHANNEL_MESSAGE
    assert fake.hub.identify_count == 1
    assert_clean(fake)


async def test_deferred_answer_edit_and_followup_with_file(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "slow")
    assert res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE
    original = await res.wait_for_original()
    assert original.text() == "done\nResult"
    [followup] = await res.wait_for_followups(1)
    assert followup.content == "and one more thing"
    [attachment] = followup.attachments
    assert attachment["filename"] == "code.py"
    assert fake.attachment_bytes(attachment) == Path(__file__).read_bytes()
    assert [m.id for m in fake.channel_messages(world.channel)] == [original.id, followup.id]
    assert_clean(fake)


async def test_dm_and_closed_dms(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "dm")
    assert res.message is not None and res.message.content == "sent you a DM"
    assert [m.content for m in fake.dm_messages(world.alice)] == ["a secret board"]
    fake.fail_dm_for(world.bob)
    res = await fake.slash(world.bob, world.channel, "demo", "dm")
    assert res.ephemeral and res.message is not None and res.message.content == "open your DMs (50007)"
    assert fake.dm_messages(world.bob) == []
    assert_clean(fake)


async def test_select_modal_and_autocomplete(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "demo", "pick")
    assert res.message is not None
    picked = await fake.select(world.alice, res.message, "demo:pick", ["b"])
    assert picked.callback_type == Callback.UPDATE_MESSAGE and res.message.content == "picked b"
    shown = await fake.select(world.alice, res.message, "demo:pick", ["modal"])
    assert shown.callback_type == Callback.MODAL and shown.modal is not None
    submitted = await fake.submit_modal(world.alice, shown, {"name": "Alice"})
    assert submitted.message is not None and submitted.message.content == "hello Alice"
    choices = await fake.autocomplete(
        world.alice, world.channel, "demo echo", options={"text": "ap"}, focused="text"
    )
    assert [c["value"] for c in choices] == ["apple", "apricot"]
    assert_clean(fake)


async def test_driver_refuses_what_a_client_could_not_send(world: World, bots: BotRunner[DemoBot]) -> None:
    fake = world.fake
    with pytest.raises(LookupError, match="not registered"):
        await fake.slash(world.alice, world.channel, "demo", "ping")
    await bots.start()
    with pytest.raises(LookupError, match="has no option"):
        await fake.slash(world.alice, world.channel, "demo", "ping", options={"whom": world.bob})
    with pytest.raises(LookupError, match="cannot be invoked by itself"):
        await fake.slash(world.alice, world.channel, "demo")
    with pytest.raises(ValueError, match="missing required"):
        await fake.slash(world.alice, world.channel, "demo", "echo")


async def test_unhandled_route_and_exact_json_content_type(world: World) -> None:
    fake = world.fake
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{fake.api_base}/users/@me", headers=headers) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "application/json"
        async with session.get(f"{fake.api_base}/guilds/1/bans", headers=headers) as resp:
            assert resp.status == 404
            assert (await resp.json())["code"] == 0
    assert fake.violations == ["GET /guilds/1/bans: unhandled route (the fake does not implement it)"]


@needs_spec
def test_spec_is_loaded_once() -> None:
    assert load_spec_validator() is VALIDATOR
    assert VALIDATOR is not None and VALIDATOR.load_seconds < 10


def test_missing_spec_skips_locally_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "openapi.json"
    monkeypatch.setenv(spec_module.ENV_SPEC_PATH, str(missing))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(spec_module, "_warned", False)
    with pytest.warns(UserWarning, match="OpenAPI validation is skipped"):
        assert load_spec_validator() is None
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="required when"):
        load_spec_validator()


async def test_unknown_interaction_token_is_unknown_webhook(world: World) -> None:
    fake = world.fake
    url = f"{fake.api_base}/webhooks/{fake.application_id}/not-a-token/messages/@original"
    async with aiohttp.ClientSession() as session, session.patch(url, json={"content": "x"}) as resp:
        assert resp.status == 404
        assert await resp.json() == {"code": 10015, "message": "Unknown Webhook"}
    assert fake.violations == []


async def test_an_enforced_nonce_returns_the_message_created_with_it(world: World) -> None:
    """Discord: "If true and nonce is present, it will be checked for uniqueness in the past few minutes. If another
    message was created by the same author with the same nonce, that message will be returned and no new message will
    be created." Without `enforce_nonce` a nonce changes nothing."""
    fake = world.fake
    url = f"{fake.api_base}/channels/{world.channel.id}/messages"
    headers = {"Authorization": f"Bot {fake.token}"}

    async def post(body: dict[str, object]) -> int:
        async with aiohttp.ClientSession() as session, session.post(url, json=body, headers=headers) as resp:
            assert resp.status == 200
            sent = await resp.json()
            assert sent.get("nonce") == body.get("nonce")
            return int(sent["id"])

    first = await post({"content": "one", "nonce": "n1", "enforce_nonce": True})
    assert await post({"content": "two", "nonce": "n1", "enforce_nonce": True}) == first
    third = await post({"content": "three", "nonce": "n1"})  # not enforced: a new message
    assert third != first
    assert await post({"content": "four", "nonce": "n2", "enforce_nonce": True}) != first
    assert [m.content for m in fake.channel_messages(world.channel)] == ["one", "three", "four"]
    fake.messages[third].deleted = True  # a deleted message is not returned: the newest other one with it is
    assert await post({"content": "five", "nonce": "n1", "enforce_nonce": True}) == first
    assert fake.violations == []


# --------------------------------------------------------------------------- pure helpers


def _button(custom_id: str, label: str = "go") -> dict[str, Any]:
    return {"type": Component.BUTTON, "style": ButtonStyle.PRIMARY, "label": label, "custom_id": custom_id}


def _row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": Component.ACTION_ROW, "components": list(items)}


def _select(n_options: int, custom_id: str = "pick") -> dict[str, Any]:
    options = [{"label": f"o{i}", "value": f"v{i}"} for i in range(n_options)]
    return {"type": Component.STRING_SELECT, "custom_id": custom_id, "options": options}


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"content": "x" * 2001}, "content: Must be 2000 or fewer in length (got 2001"),
        ({"components": [_row(_button(f"b{i}")) for i in range(6)]}, "components: Must be 5 or fewer"),
        ({"components": [_row(*[_button(f"b{i}") for i in range(6)])]}, "6 buttons in one row"),
        ({"components": [_row(_select(2), _button("b"))]}, "must be alone in its action row"),
        ({"components": [_row(_select(26))]}, "options: Must be 25 or fewer"),
        ({"components": [_row(_button("x" * 101))]}, "custom_id: Must be 100 or fewer"),
        ({"components": [_row(_button("b", "L" * 81))]}, "label: Must be 80 or fewer"),
        ({"components": [_row({"type": Component.BUTTON, "style": ButtonStyle.PRIMARY, "custom_id": "b"})]},
         "needs a label or an emoji"),
        ({"components": [_row({"type": Component.BUTTON, "style": ButtonStyle.PRIMARY, "label": "b"})]},
         "Non-link buttons need a custom_id"),
        ({"components": [_row(_button("same"), _button("same"))]}, "cannot be duplicated"),
        ({"embeds": [{"title": "t"}] * 11}, "embeds: Must be 10 or fewer"),
        ({"embeds": [{"title": "t" * 257}]}, "title: Must be 256 or fewer"),
        ({"embeds": [{"description": "d" * 4097}]}, "description: Must be 4096 or fewer"),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, "fields: Must be 25 or fewer"),
        ({"embeds": [{"fields": [{"name": "n" * 257, "value": "v"}]}]}, "name: Must be 256 or fewer"),
        ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, "value: Must be 1024 or fewer"),
        ({"embeds": [{"footer": {"text": "f" * 2049}}]}, "text: Must be 2048 or fewer"),
        (
            {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]},
            "exceeds maximum size of 6000",
        ),
        ({"content": ""}, "Cannot send an empty message"),
    ],
)
def test_classic_limits(payload: dict[str, Any], fragment: str) -> None:
    issues = check_message(payload, creating=True)
    assert any(fragment in issue.describe() for issue in issues), [i.describe() for i in issues]


def test_classic_limits_accept_a_full_legal_message() -> None:
    rows = [_row(*[_button(f"r{r}b{b}", "L" * 80) for b in range(5)]) for r in range(4)]
    rows.append(_row(_select(25)))
    fields = [{"name": "n" * 100, "value": "v" * 100}] * 25
    payload = {"content": "x" * 2000, "components": rows, "embeds": [{"title": "t" * 256, "fields": fields}]}
    assert check_message(payload, creating=True) == []


def test_options_are_typed_from_the_registered_definition() -> None:
    alice = FakeUser(1_300_000_000_000_000_000, "alice")
    sub = {
        "type": OptionType.SUB_COMMAND,
        "name": "sub",
        "options": [
            {"type": OptionType.USER, "name": "who", "required": True},
            {"type": OptionType.INTEGER, "name": "n", "min_value": 1, "max_value": 3},
        ],
    }
    definition = {
        "id": "1",
        "name": "g",
        "type": CommandType.CHAT_INPUT,
        "options": [{"type": OptionType.SUB_COMMAND_GROUP, "name": "grp", "options": [sub]}],
    }
    path = resolve_command(definition, ["g", "grp", "sub"])
    built = build_options(path, {"who": alice, "n": 2}, guild_id=5)
    leaf = [{"name": "who", "type": OptionType.USER, "value": str(alice.id)},
            {"name": "n", "type": OptionType.INTEGER, "value": 2}]
    assert path.wrap(built.options) == [
        {"name": "grp", "type": OptionType.SUB_COMMAND_GROUP,
         "options": [{"name": "sub", "type": OptionType.SUB_COMMAND, "options": leaf}]}
    ]
    assert built.resolved["users"][str(alice.id)]["username"] == "alice"
    assert str(alice.id) in built.resolved["members"]
    with pytest.raises(ValueError, match="outside"):
        build_options(path, {"who": alice, "n": 9}, guild_id=5)
    with pytest.raises(TypeError, match="integer option"):
        build_options(path, {"who": alice, "n": "2"}, guild_id=5)


async def test_gateway_protocol_with_plain_text_frames(world: World) -> None:
    fake = world.fake
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(f"{fake.gateway_url}?v=10&encoding=json") as ws:
            hello = await ws.receive_json(timeout=2)
            assert hello["op"] == Opcode.HELLO and hello["d"]["heartbeat_interval"] > 0
            await ws.send_json({"op": Opcode.HEARTBEAT, "d": None})
            assert (await ws.receive_json(timeout=2))["op"] == Opcode.HEARTBEAT_ACK
            identify = {"token": fake.token, "intents": INTENT_GUILDS | INTENT_GUILD_MESSAGES, "properties": {}}
            await ws.send_json({"op": Opcode.IDENTIFY, "d": identify})
            ready = await ws.receive_json(timeout=2)
            assert (ready["t"], ready["s"]) == ("READY", 1)
            assert ready["d"]["resume_gateway_url"] == fake.gateway_url
            guild = await ws.receive_json(timeout=2)
            assert (guild["t"], guild["s"]) == ("GUILD_CREATE", 2)
            assert [c["name"] for c in guild["d"]["channels"]] == ["games"]
        async with session.ws_connect(f"{fake.gateway_url}?v=10&encoding=json") as ws:
            await ws.receive_json(timeout=2)
            await ws.send_json({"op": Opcode.IDENTIFY, "d": {"token": "wrong", "properties": {}}})
            closing = await ws.receive(timeout=2)
            assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == CLOSE_AUTHENTICATION_FAILED


def test_autocomplete_with_choices_is_refused_at_registration() -> None:
    from tests.support.fakediscord.limits import check_commands

    command = {"name": "x", "type": CommandType.CHAT_INPUT, "description": "x", "options": [
        {"type": OptionType.STRING, "name": "o", "description": "o", "autocomplete": True,
         "choices": [{"name": "a", "value": "a"}]}]}
    messages = [issue.message for issue in check_commands([command])]
    assert messages == ["Autocomplete and choices are mutually exclusive."]

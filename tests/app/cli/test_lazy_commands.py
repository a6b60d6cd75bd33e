"""The root's commands load lazily (gpu_pricing.cli.COMMANDS names each one's module and
Typer app): the table names every command those apps define, and nothing else."""

from __future__ import annotations

import importlib

import typer.main

from gpu_pricing.cli import COMMANDS, app


def test_the_table_names_every_command_of_every_group_module():
    apps = {(module, attribute, group) for module, attribute, group in COMMANDS.values()}
    defined = set()
    for module, attribute, group in apps:
        sub = getattr(importlib.import_module(f"gpu_pricing.cli.{module}"), attribute)
        if group is None:  # its commands join the root
            defined |= {
                c.name or c.callback.__name__.replace("_", "-") for c in sub.registered_commands
            }
        else:
            defined.add(group)
    assert defined == set(COMMANDS)


def test_every_listed_command_builds_and_is_named_as_listed():
    root = typer.main.get_command(app)
    assert list(root.commands) == list(COMMANDS)
    for name, command in root.commands.items():
        assert command.name == name

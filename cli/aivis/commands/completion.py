"""`aivis completion`: the shell script that completes commands, options and choices."""

from __future__ import annotations

import click
from click.shell_completion import get_completion_class

SHELLS = ("bash", "zsh", "fish")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script of SHELL (bash, zsh or fish).

    \b
    bash:  eval "$(aivis completion bash)"        in ~/.bashrc
    zsh:   eval "$(aivis completion zsh)"         in ~/.zshrc
    fish:  aivis completion fish > ~/.config/fish/completions/aivis.fish
    """
    root = ctx.find_root()
    completer = get_completion_class(shell)
    assert completer is not None  # every name of SHELLS is one of click's
    click.echo(completer(root.command, {}, "aivis", "_AIVIS_COMPLETE").source())


def register(root: click.Group) -> None:
    root.add_command(completion)

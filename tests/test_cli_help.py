"""Every command has help with a worked example; the group lists them; --version."""

from __future__ import annotations

import shlex

import pytest
from printed import assert_prints

from gradcli import __version__
from gradcli.cli import cli

COMPUTING = ["eval", "grad", "jacobian", "hessian", "vjp", "jvp", "graph"]
#: The registry's commands (analysis/commands.py), in the order of their modules (checks,
#: critical_points, fitting, implicit_functions, optimize, plotting, roots, series, ...).
DECLARED = [
    "check", "critical", "fit", "implicit", "minimize", "plot", "solve", "taylor", "diff",
    "propagate", "div", "curl", "laplacian",
]  # fmt: skip
COMMANDS = [*COMPUTING, "functions", "repl", *DECLARED, "run"]
RUNS_A_PROGRAM = {"run"}  # its output is the program's: no --format


def test_the_commands():
    assert list(cli.commands) == COMMANDS


def test_group_help_lists_every_command_in_order(gradcli):
    result = gradcli("--help")
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:")[1].split()
    assert [word for word in listed if word in COMMANDS] == COMMANDS
    assert '$ gradcli grad "(x+2)**2+3" --x 2' in result.stdout


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_command_has_help_with_an_example(gradcli, command, flag):
    result = gradcli(command, flag)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: gradcli {command} [OPTIONS]")
    assert "Example" in result.stdout
    assert f"$ gradcli {command} " in result.stdout
    assert ("--format" in result.stdout) == (command not in RUNS_A_PROGRAM)


@pytest.mark.parametrize("command", COMPUTING)
def test_every_computing_command_takes_the_shared_options(gradcli, command):
    result = gradcli(command, "--help")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: gradcli {command} [OPTIONS] [SOURCE]")
    for option in [
        "--format",
        "--precision",
        "--output",
        "--seed",
        "--dtype",
        "--strict",
        "--var",
        "--file",
        "--debug",
    ]:
        assert option in result.stdout


def help_examples(command):
    """Each ``$ gradcli ...`` line of a command's help, with the lines it shows after."""
    text = (cli.commands[command] if command else cli).help
    lines = [line.strip() for line in text.splitlines()]
    examples = []
    for i, line in enumerate(lines):
        if line.startswith("$ gradcli "):
            command_line = line[2:]
            j = i + 1
            while command_line.endswith("\\"):
                command_line = command_line[:-1] + lines[j]
                j += 1
            output = []
            while j < len(lines) and lines[j] and not lines[j].startswith("$"):
                output.append(lines[j])
                j += 1
            examples.append((command_line, output))
    return examples


# repl's example is a terminal session: tests/test_repl.py replays it.
@pytest.mark.parametrize("command", [None, *(c for c in COMMANDS if c != "repl")])
def test_help_examples_print_what_they_say(gradcli, command):
    examples = help_examples(command)
    assert examples
    for command_line, output in examples:
        args = shlex.split(command_line)[1:]
        result = gradcli(*args)
        assert result.exit_code == 0, result.output
        assert_prints(result.stdout.splitlines(), output, command_line)


def test_version(gradcli):
    result = gradcli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"gradcli {__version__}\n"


def test_shell_completion_script(gradcli):
    result = gradcli(env={"_GRADCLI_COMPLETE": "bash_source"})
    assert result.exit_code == 0
    assert "complete -o nosort -F _gradcli_completion gradcli" in result.stdout


@pytest.mark.parametrize(
    "words, expected",
    [
        ("gradcli ja", "plain,jacobian"),
        ("gradcli grad --for", "plain,--format"),
        ("gradcli grad --format ", "plain,table\nplain,plain\nplain,json\nplain,csv\nplain,jsonl"),
    ],
)
def test_shell_completion_of_commands_and_options(gradcli, words, expected):
    env = {
        "_GRADCLI_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    result = gradcli(env=env)
    assert result.exit_code == 0
    assert result.stdout.strip() == expected


def test_the_library_knows_every_option_name_of_the_command_line():
    """A missing input named like an option is bound with --var NAME=VALUE: the library's
    list of option names must be the command line's."""
    import click

    from gradcli import api
    from gradcli.cli import cli

    names = set()
    for command in cli.commands.values():
        for param in command.params:
            if isinstance(param, click.Option):
                names.update(o.lstrip("-") for o in param.opts if o.startswith("--"))
    names = {n for n in names if n.isidentifier()}  # only these can also be input names
    assert names <= api._OPTION_NAMES | {"help"}, names - api._OPTION_NAMES


def test_an_option_is_made_only_from_a_declared_name():
    """Every option is built from ``option_names``: an undeclared one is refused, so the
    library's list cannot miss one."""
    from gradcli.cli import options

    assert options.long("seed") == "--seed"
    with pytest.raises(ValueError, match="option_names"):
        options.option("no-such-option", help="nothing")

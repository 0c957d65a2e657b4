"""What the commands share about the terminal they write to."""

from __future__ import annotations

import argparse
import sys


def add_color_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")


def wants_color(choice: str) -> bool:
    """`--color`: `always`, `never`, or (`auto`) when standard output is a terminal."""
    return choice == "always" or (choice == "auto" and sys.stdout.isatty())

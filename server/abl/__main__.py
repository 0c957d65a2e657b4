from abl.cli.main import entry

entry()

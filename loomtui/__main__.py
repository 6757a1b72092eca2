from loomtui.cli import run

run()

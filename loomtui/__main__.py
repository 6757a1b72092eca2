from loomtui.cli import main

raise SystemExit(main())

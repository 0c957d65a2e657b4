from abl.cli.main import main

raise SystemExit(main())

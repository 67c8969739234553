from starter.cli import main

raise SystemExit(main())

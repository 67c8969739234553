from ops_service.server import main

raise SystemExit(main())

from opdiff.cli import main

raise SystemExit(main())

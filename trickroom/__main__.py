from trickroom.cli import main

raise SystemExit(main())

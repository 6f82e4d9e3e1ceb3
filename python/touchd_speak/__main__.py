import sys

from touchd_speak import main

sys.exit(main())

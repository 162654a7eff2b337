from aivis.main import main

main()

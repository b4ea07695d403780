print("geoledger")

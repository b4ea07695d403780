// Projections module

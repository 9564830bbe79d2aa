"""Pure computation for jobs (validation, power, flow simulation). Never imports Django."""

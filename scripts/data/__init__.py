"""Tools run on data: the self-play dataset reader, the evaluation tuner, EPD makers."""

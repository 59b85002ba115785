-- Issue 23 (draw offers, rematches, turn pings at the table).
-- A draw offer lasts until the opponent answers: the offerer's own move keeps it (draw_offer stays), the opponent's
-- move declines it; `draw_declined` is then the seat whose offer that move declined, until the next move, so that
-- the boards drawn after it say so to the one who offered.
ALTER TABLE games ADD COLUMN draw_declined INTEGER;

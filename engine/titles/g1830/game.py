"""1830 rule hooks over the 18xx core: the round structure and what the privates bring."""

from __future__ import annotations

from engine.core.game import BaseGame
from engine.core.rounds import AuctionRound, OperatingRound, StockRound
from engine.core.steps.auction import CompanyPendingPar, WaterfallAuction
from engine.core.steps.operating import (
    Bankrupt,
    BlockingBuyCompany,
    BuyCompany,
    BuyTrain,
    DiscardTrain,
    Dividend,
    HomeToken,
    Route,
    SpecialToken,
    SpecialTrack,
    Token,
    Track,
)
from engine.core.steps.stock import BuySellParShares, Exchange


class BuySellParShares1830(BuySellParShares):
    def multiple_from_ipo_allowed(self, corp) -> bool:
        # optional rule: brown-zone multiple buys may also come from the IPO
        return "multiple_brown_from_ipo" in self.game.optional_rules

    def interplayer_sales_open(self) -> bool:
        # not in the first stock round
        return super().interplayer_sales_open() and self.game.turn > 1


class Game1830(BaseGame):
    TITLE = "1830"
    PROGRAM_TYPES = (*BaseGame.PROGRAM_TYPES, *WaterfallAuction.PROGRAM_TYPES)  # auction programs too
    PRESIDENTS_CERTIFICATE_SOLD_LAST = True

    def initial_round(self):
        return AuctionRound(self, [CompanyPendingPar, WaterfallAuction])

    def stock_round(self):
        return StockRound(self, [DiscardTrain, Exchange, SpecialTrack, BuySellParShares1830])

    def operating_round(self, round_num: int):
        return OperatingRound(self, [Bankrupt, Exchange, SpecialTrack, SpecialToken, BuyCompany, HomeToken, Track,
                                     Token, Route, Dividend, DiscardTrain, BuyTrain, BlockingBuyCompany],
                              round_num=round_num)

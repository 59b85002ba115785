"""The Discord bot: configuration, client, cogs and the service layer they call."""
